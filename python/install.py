"""install.py - install the trz package (python/trz and a copy of libtrz.so)
into the environment of the Python that runs this script, without pip,
setuptools, wheel or a network (`make install-python PYTHON=...` runs it).

pip would first build a wheel, which takes the `wheel` package (setuptools
before 70 has no bdist_wheel of its own) or, with build isolation, a
download; a fresh virtual environment has neither.  The package is pure
Python beside one shared library, so installing is a copy into site-packages
plus the metadata pip itself writes (a .dist-info directory with METADATA,
RECORD, INSTALLER), so that `pip show trz`, `pip uninstall trz` and
importlib.metadata know it.

    python install.py --library PATH/libtrz.so
"""

import argparse
import ast
import base64
import hashlib
import os
import re
import shutil
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))


def project_fields():
    """name, description, requires-python and extras from pyproject.toml."""
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        text = f.read().decode("utf-8")
    try:
        import tomllib  # Python 3.11 and later
        project = tomllib.loads(text)["project"]
    except ImportError:  # the few plain lines this file uses
        project = {"optional-dependencies": {}}
        section = None
        for line in text.splitlines():
            m = re.match(r"\[(.*)\]\s*$", line)
            if m:
                section = m.group(1)
                continue
            m = re.match(r'([\w-]+)\s*=\s*(".*"|\[.*\])\s*$', line)
            if not m:
                continue
            value = ast.literal_eval(m.group(2))  # a string or a list of strings
            if section == "project":
                project[m.group(1)] = value
            elif section == "project.optional-dependencies":
                project["optional-dependencies"][m.group(1)] = value
    return project


def version():
    with open(os.path.join(HERE, "trz", "_version.py")) as f:
        return re.search(r'__version__ = "([^"]+)"', f.read()).group(1)


def metadata(project, ver):
    """The METADATA file (core metadata 2.1), the README as its description."""
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + ver,
             "Summary: " + project.get("description", "")]
    if "requires-python" in project:
        lines.append("Requires-Python: " + project["requires-python"])
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s ; extra == "%s"' % (r, extra) for r in reqs]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(HERE, "README.md")) as f:
        return "\n".join(lines) + "\n\n" + f.read()


def record_line(site, path):
    with open(path, "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (os.path.relpath(path, site).replace(os.sep, "/"), digest, len(data))


def remove_old(site, name):
    """An earlier installation (this script's or pip's): the files its RECORD lists."""
    for entry in os.listdir(site):
        if not (entry.endswith(".dist-info") and entry.split("-")[0].lower() == name):
            continue
        record = os.path.join(site, entry, "RECORD")
        if os.path.exists(record):
            with open(record) as f:
                for line in f:
                    path = os.path.normpath(os.path.join(site, line.rsplit(",", 2)[0]))
                    if path.startswith(site + os.sep) and os.path.isfile(path):
                        os.remove(path)
        shutil.rmtree(os.path.join(site, entry), ignore_errors=True)
    shutil.rmtree(os.path.join(site, name), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", required=True, help="the libtrz.so to install beside the package")
    ap.add_argument("--break-system-packages", action="store_true",
                    help="install into a Python that its distribution manages (PEP 668) all the same")
    args = ap.parse_args()
    marker = os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")
    if sys.prefix == sys.base_prefix and os.path.exists(marker) and not args.break_system_packages:
        sys.exit("install.py: %s is managed by the system's package manager (%s); install into a virtual "
                 "environment (python3 -m venv DIR; make install-python PYTHON=DIR/bin/python)"
                 % (sys.executable, marker))
    project = project_fields()
    name, ver = project["name"], version()
    # platlib: the package carries a shared library (in a venv it is purelib too)
    site = os.path.abspath(sysconfig.get_paths()["platlib"])
    os.makedirs(site, exist_ok=True)
    remove_old(site, name)

    pkg = os.path.join(site, name)
    os.makedirs(pkg)
    files = []
    for entry in sorted(os.listdir(os.path.join(HERE, name))):
        if entry.endswith(".py"):
            files.append(shutil.copyfile(os.path.join(HERE, name, entry), os.path.join(pkg, entry)))
    files.append(shutil.copyfile(args.library, os.path.join(pkg, "libtrz.so")))
    os.chmod(files[-1], 0o755)

    info = os.path.join(site, "%s-%s.dist-info" % (name, ver))
    os.makedirs(info)
    for fname, text in (("METADATA", metadata(project, ver)), ("INSTALLER", "trz-make\n"),
                        ("top_level.txt", name + "\n"), ("REQUESTED", "")):
        path = os.path.join(info, fname)
        with open(path, "w") as f:
            f.write(text)
        files.append(path)
    with open(os.path.join(info, "RECORD"), "w") as f:
        for path in files:
            f.write(record_line(site, path) + "\n")
        f.write(os.path.relpath(os.path.join(info, "RECORD"), site) + ",,\n")
    print("installed %s %s into %s" % (name, ver, site))


if __name__ == "__main__":
    sys.exit(main())
