"""The kit's one way of writing a file: through a temporary file in the
same folder and a rename, so a reader never sees half of it."""
import json
import os
import tempfile


def write_text(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix=".tmp.")
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json(path, value, indent=1, allow_nan=False):
    write_text(path, json.dumps(value, indent=indent, allow_nan=allow_nan)
               + "\n")


def read_json(path):
    with open(path) as f:
        return json.load(f)
