#!/usr/bin/env python3
"""One run of a command as a whole process: prints "wall_s cpu_s rss_mib".

  measure.py STDOUT_FILE STDERR_FILE -- COMMAND [ARG ...]

Wall time from a monotonic clock, CPU time (user + system) and peak RSS from
the kernel's accounting of the finished child (wait4), so a 10k-op run is
measured to the millisecond, not to /usr/bin/time's hundredth of a second.
Exits with the command's status (1 if it could not be started).
"""
import os
import sys
import time


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        print(__doc__.strip().split("\n")[2].strip(), file=sys.stderr)
        return 2
    out, err, argv = sys.argv[1], sys.argv[2], sys.argv[4:]
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fo = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fe = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fo, 1)
        os.dup2(fe, 2)
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            os.write(2, ("measure.py: %s: %s\n" % (argv[0], e.strerror)).encode())
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - start
    print("%.3f %.3f %.1f" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0))
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 1


if __name__ == "__main__":
    sys.exit(main())
