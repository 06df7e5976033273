//go:build !linux

package main

import (
	"os/exec"
	"time"
)

// childProcAttr: elsewhere the child ends on stdin EOF or an explicit kill.
func childProcAttr(cmd *exec.Cmd) {}

// killChild kills the child process.
func killChild(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// processCPU is not measured off Linux (reported as 0).
func processCPU() time.Duration { return 0 }
