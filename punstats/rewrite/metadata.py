"""What a file that ``rewrite --write`` replaces hands on to its replacement, and what refuses it.

Kept: the owner and group, all twelve mode bits (setuid, setgid and sticky
too) and the extended attributes (on Linux; access control lists are among
them).  ``identity`` reads them from the original, ``give`` puts them on the
replacement, in the order that keeps them (the owner first: a chown clears
setuid and setgid; the attributes before the mode: an access list sets the
group bits), and reads them back: what did not stick (an owner that only root
may give, a setgid bit for a group the writer is not in, an attribute the
file system or the writer may not set) is the reason the file is not
replaced.  A file with more than one hard link is refused as well
(``unkeepable``): a replacement would leave the other names on the old bytes.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Dict, Tuple


@dataclass(frozen=True)
class Identity:
    """What a replacement must keep of a file (and, ``links``, why there may be none)."""

    mode: int  # all twelve bits: stat.S_IMODE
    uid: int
    gid: int
    links: int
    xattrs: Tuple[Tuple[str, bytes], ...]  # sorted by name


def _xattrs(fd: int) -> Dict[str, bytes]:
    """The extended attributes of ``fd`` that this process can see ({} where there are none)."""
    if not hasattr(os, "listxattr"):
        return {}
    try:
        names = os.listxattr(fd)
    except OSError:  # a file system without them
        return {}
    return {name: os.getxattr(fd, name) for name in names}


def identity(fd: int) -> Identity:
    """The identity of the open file ``fd``."""
    info = os.fstat(fd)
    return Identity(stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_nlink,
                    tuple(sorted(_xattrs(fd).items())))


def unkeepable(original: Identity) -> str:
    """Why no replacement can stand for ``original``; "" when one can."""
    if original.links > 1:
        return "has %d hard links: replacing it would break them" % original.links
    return ""


def give(fd: int, original: Identity) -> str:
    """Give the open file ``fd`` the identity of ``original``; "" or why it would not take it."""
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) != (original.uid, original.gid):
        try:
            os.fchown(fd, original.uid, original.gid)
        except OSError as exc:
            return "cannot keep its owner %d:%d: %s" % (original.uid, original.gid, exc.strerror or exc)
    problem = _give_xattrs(fd, original.xattrs)
    if problem:
        return problem
    try:
        os.fchmod(fd, original.mode)
    except OSError as exc:
        return "cannot keep its mode %04o: %s" % (original.mode, exc.strerror or exc)
    return _check(fd, original)


def _give_xattrs(fd: int, xattrs: Tuple[Tuple[str, bytes], ...]) -> str:
    """Give ``fd`` exactly the extended attributes ``xattrs``; "" or why not."""
    wanted = dict(xattrs)
    current = _xattrs(fd)
    for name in sorted(set(current) - set(wanted)):  # e.g. from a directory's default access list
        try:
            os.removexattr(fd, name)
        except OSError as exc:
            return "cannot leave out the extended attribute %s: %s" % (name, exc.strerror or exc)
    for name, value in xattrs:
        if current.get(name) != value:
            try:
                os.setxattr(fd, name, value)
            except OSError as exc:
                return "cannot keep its extended attribute %s: %s" % (name, exc.strerror or exc)
    return ""


def _check(fd: int, original: Identity) -> str:
    """"" when ``fd`` has the identity of ``original``, else what it lacks."""
    got = identity(fd)
    if got.mode != original.mode:
        return "cannot keep its mode %04o (it would be %04o)" % (original.mode, got.mode)
    if (got.uid, got.gid) != (original.uid, original.gid):
        return "cannot keep its owner %d:%d (it would be %d:%d)" % (original.uid, original.gid, got.uid, got.gid)
    if got.xattrs != original.xattrs:
        lost = sorted(set(original.xattrs) ^ set(got.xattrs))
        return "cannot keep its extended attributes (%s)" % ", ".join(sorted({n for n, _ in lost}))
    return ""
