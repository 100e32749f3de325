"""The kit's one way of writing a file: through a temporary file in the
same folder and a rename, so a reader never sees half of it."""
import contextlib
import json
import os
import tempfile


@contextlib.contextmanager
def temporary_beside(path):
    """A temporary path beside `path` for the caller to write; renamed over
    `path` when the block ends without an error, removed when it raises."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix=".tmp.")
    os.close(fd)
    try:
        os.chmod(tmp, 0o644)
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_text(path, text):
    with temporary_beside(path) as tmp, open(tmp, "w") as out:
        out.write(text)


def write_json(path, value, indent=1, allow_nan=False):
    write_text(path, json.dumps(value, indent=indent, allow_nan=allow_nan)
               + "\n")


def read_json(path):
    with open(path) as f:
        return json.load(f)
