/* SPDX-License-Identifier: MIT */
#pragma once

/* storpulsectl verbs. Each takes the verb's own argv (argv[0] = verb name) and returns the
 * process exit code documented in its --help (0 ok, 1 usage, 2 target unusable, 3 I/O errors). */

int ctl_volumes_main(int argc, char **argv); /* ctl-volumes.c */
int ctl_probe_main(int argc, char **argv);   /* ctl-probe.c */
int ctl_watch_main(int argc, char **argv);   /* ctl-watch.c */
int ctl_status_main(int argc, char **argv);  /* ctl-daemon.c */
/* ctl-daemon.c: `probe --profile` and `volumes --daemon` ask storpulsed. Returns the exit code
 * when argv (argv[0] = verb) is one of those, -1 otherwise. */
int ctl_daemon_route(int argc, char **argv);
/* ctl-report.c: learned baselines (report from the daemon or --offline from the state file;
 * baseline reset VOLUME through the daemon). */
int ctl_report_main(int argc, char **argv);
int ctl_baseline_main(int argc, char **argv);
/* ctl-history.c: the daemon's recent probe runs per volume. */
int ctl_history_main(int argc, char **argv);
