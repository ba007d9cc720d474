"""Wait until a starting `hearth serve` answers ``/api/health`` (its model loaded and warmed up).

Service managers run it after starting Hearth (the systemd unit's ``ExecStartPost``), so the
service counts as started only once the first question will be answered at full speed:
``python -m service.warm --url http://127.0.0.1:8377 --timeout 300``. Exit code 0 when healthy,
1 when the deadline passed.
"""

from __future__ import annotations

import argparse
import sys
import time

import httpx


def wait_healthy(url: str, timeout: float, interval: float = 1.0) -> bool:
    """Poll ``url/api/health`` until it answers 200 or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url.rstrip('/')}/api/health", timeout=5).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: ``--url`` and ``--timeout``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", default="http://127.0.0.1:8377", help="Hearth's base URL.")
    parser.add_argument("--timeout", type=float, default=300.0, help="Seconds to wait.")
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    if wait_healthy(args.url, args.timeout):
        return 0
    print(f"hearth at {args.url} not healthy after {args.timeout:.0f} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
