package sidecar

import (
	"github.com/yarn-sidecar/yarn-sidecar/internal/decidefix"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The fixtures the plumbing's tests share with sidecar/decide's.
const pre = schedconf.Prefix

var (
	nestedConf    = decidefix.NestedConf
	mustTree      = decidefix.MustTree
	shieldFixture = decidefix.ShieldFixture
	mapModel      = decidefix.MapModel
)
