package daemon

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/safego"
)

// Zero-downtime upgrades: `serve -upgrade` binds the traffic ports beside
// the instance serving them; SIGUSR2 makes a serving instance start that
// new one itself, from its binary's path (the new binary, once it has
// been put in place), in its own cgroup, so that under systemd the new
// process becomes the unit's main process (MAINPID) and the old one
// stops once the new one serves.

// upgradeParentEnv names, in a process SIGUSR2 started, the instance it
// replaces: once serving, it tells systemd its PID and stops that one.
const upgradeParentEnv = "REDIRECTD_UPGRADE_PARENT"

// reclaimEvery is how often a new instance tries to take the configured
// admin address back while the old one still holds it.
const reclaimEvery = 250 * time.Millisecond

// startUpgrade starts this binary again as `serve -upgrade`, on a
// temporary admin address (the configured one's host, any port), with
// the same config and log format; the child stops this process once it
// serves (upgraded).
func startUpgrade(o Options, adminListen string, log *slog.Logger) {
	exe, err := os.Executable()
	if err != nil {
		log.Error("upgrade: cannot find this binary's path", "err", err)
		return
	}
	args := []string{"serve", "-upgrade", "-log-format", o.LogFormat, "-admin-listen", temporaryAdmin(adminListen)}
	if o.Config != "" {
		args = append(args, "-config", o.Config)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), upgradeParentEnv+"="+strconv.Itoa(os.Getpid()))
	if err := cmd.Start(); err != nil {
		log.Error("upgrade: cannot start the new instance", "binary", exe, "err", err)
		return
	}
	log.Info("upgrade: started the new instance; this one stops once it serves", "binary", exe, "pid", cmd.Process.Pid)
	safego.Go("upgrade child", func() {
		// Reaped, so that a child that fails to start is said, and
		// does not stay a zombie while this instance serves on.
		if err := cmd.Wait(); err != nil {
			log.Error("upgrade: the new instance exited; this one serves on", "err", err)
		}
	})
}

// temporaryAdmin is the admin address a new instance takes until the old
// one lets the configured one go: its host, a port the system picks.
func temporaryAdmin(listen string) string {
	if listen == "off" || listen == "" {
		return "off"
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "off"
	}
	return net.JoinHostPort(host, "0")
}

// upgraded runs in a new instance once it serves: started by SIGUSR2, it
// names itself systemd's main process (NotifyAccess=all) and stops the
// instance it replaces.
func upgraded(log *slog.Logger) {
	parent, err := strconv.Atoi(os.Getenv(upgradeParentEnv))
	if err != nil || parent <= 1 || parent != os.Getppid() {
		return // not started by an upgrade, or its parent is gone
	}
	if err := sdNotify(fmt.Sprintf("MAINPID=%d\nREADY=1", os.Getpid())); err != nil {
		log.Warn("upgrade: cannot tell systemd the new main PID", "err", err)
	}
	if err := syscall.Kill(parent, syscall.SIGTERM); err != nil {
		log.Error("upgrade: cannot stop the old instance", "pid", parent, "err", err)
		return
	}
	log.Info("upgrade: serving; the old instance drains and stops", "pid", parent)
}

// reclaimAdmin takes the configured admin address back from the instance
// this one replaces, once it lets it go, until stop.
func reclaimAdmin(adm *admin.Server, listen string, stop <-chan struct{}, log *slog.Logger) {
	defer safego.Recover("admin reclaim")
	everyUntil(reclaimEvery, stop, func() bool {
		if err := adm.Adopt(listen); err != nil {
			return false
		}
		log.Info("admin: listening on the configured address again", "listen", listen)
		return true
	})
}

// upgradeSide runs once the instance serves: one that SIGUSR2 started
// takes over (upgraded), one started with -upgrade on another admin
// address than the configured one (listen) takes that one back; it
// returns what SIGUSR2 runs.
func upgradeSide(o Options, adm *admin.Server, configured, listen string, stop <-chan struct{}, log *slog.Logger) func() {
	upgraded(log)
	if o.Upgrade && adm != nil && configured != "off" && configured != listen {
		go reclaimAdmin(adm, configured, stop, log)
	}
	return func() { startUpgrade(o, configured, log) }
}
