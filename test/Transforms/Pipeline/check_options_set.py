#!/usr/bin/env python3
"""Checks that a test sets every option of --amp-pipeline, so that an option
added to the pipeline without being passed on to its pass fails the test
until the test sets it and checks where it arrives.

Usage: amp-opt --help | check_options_set.py TEST_FILE

The options are those `amp-opt --help` lists under --amp-pipeline; the test
sets one by writing `name=` in a RUN line."""
import re
import sys


def pipeline_options(help_text):
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if re.match(r"\s+--amp-pipeline\s", line))
    indent = len(lines[start]) - len(lines[start].lstrip())
    options = []
    for line in lines[start + 1:]:
        match = re.match(r"(\s+)--([\w-]+)", line)
        if match and len(match.group(1)) <= indent:
            break
        if match:
            options.append(match.group(2))
    return options


def main():
    options = pipeline_options(sys.stdin.read())
    runs = " ".join(line for line in open(sys.argv[1]) if "RUN:" in line)
    missing = [o for o in options if not re.search(r"\b%s=" % o, runs)]
    for option in missing:
        print("--amp-pipeline option %s is not set by the test" % option)
    print("pipeline options: %d, %s" %
          (len(options), "%d not set" % len(missing) if missing else "all set"))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
