package main

import (
	"os/exec"
	"syscall"
	"time"
)

// childProcAttr puts the child in its own process group (so a stop kills
// everything it might start) and asks the kernel to kill it when the
// parent dies: a bench killed by a signal runs no defers. (Pdeathsig is
// tied to the forking thread; Go only ends threads a locked goroutine
// leaves, which the bench never does.) ctx's end kills the group too.
func childProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { killChild(cmd); return nil }
}

// killChild sends SIGKILL to the child's process group.
func killChild(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
