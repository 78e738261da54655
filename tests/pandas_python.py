"""Finds a python that has pandas: the one running, else Debian's /usr/bin/python3 (a pyenv or venv
python first on PATH often has none). Tests call ensure_pandas() first; it re-runs the script under
a python that has pandas, or returns the reason none was found (the caller then exits 77, skipped)."""
import os
import subprocess
import sys

CANDIDATES = ["/usr/bin/python3", "/usr/local/bin/python3"]


def ensure_pandas():
    try:
        import pandas  # noqa: F401
        return None
    except ImportError:
        pass
    if os.environ.get("WARPCOST_PANDAS_REEXEC") != "1":
        for cand in CANDIDATES:
            if os.path.realpath(cand) == os.path.realpath(sys.executable) or not os.access(cand, os.X_OK):
                continue
            if subprocess.run([cand, "-c", "import pandas"], capture_output=True).returncode == 0:
                os.environ["WARPCOST_PANDAS_REEXEC"] = "1"
                os.execv(cand, [cand] + sys.argv)
    return (f"no python with pandas here ({sys.executable} and {', '.join(CANDIDATES)} lack it; "
            f"Debian: apt-get install python3-pandas)")
