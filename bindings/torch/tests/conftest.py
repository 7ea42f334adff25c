import atexit
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the package, built in place by `make torch`

# torchrun keeps each run's logs in a directory of its own under the temporary directory
# (torchelastic_*) and never removes it: the tests' runs put theirs in one of the session's,
# removed at its end, so that a make check leaves none behind in /tmp.
_tmp = tempfile.mkdtemp(prefix="shmc-torch-tests-")
os.environ["TMPDIR"] = _tmp
tempfile.tempdir = None  # (gettempdir reads TMPDIR again)
atexit.register(shutil.rmtree, _tmp, ignore_errors=True)
