"""Files the command line reads and writes: hand photos named ``TEAM:PHOTO``, the layout as JSON for a person to
edit, the annotated photos, and a game's CSV."""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scorer import HandFootError

from .core import annotated_image
from .results import PhotoScore


def hand_photos(values: Sequence[str]) -> list[tuple[str, str]]:
    """``--hand A:hand.jpg`` -> [("A", "hand.jpg")] (the photo is read later). Raises HandFootError for a
    value that is not ``TEAM:PHOTO``."""
    out = []
    for v in values:
        team, sep, photo = v.partition(":")
        if not sep or not team.strip() or not photo.strip():
            raise HandFootError(f"--hand needs TEAM:PHOTO, got {v!r}")
        out.append((team.strip(), photo.strip()))
    return out


def check_hand_photos(hands: list[tuple[str, str]]) -> None:
    """Raise HandFootError naming a hand photo that is a folder or no file."""
    for _, photo in hands:
        if Path(photo).is_dir():
            raise HandFootError(f"{photo}: a folder; --hand takes one photo (repeat --hand for several)")
        if not Path(photo).is_file():
            raise HandFootError(f"{photo}: no such file")


def layout_text(value: Any, indent: int = 0) -> str:
    """A layout document as JSON for a person to edit: objects one key a line, each pile (a list of card codes, or
    a squared book's object) on one line, as in docs/layout.md; ends with a newline at the top level."""
    pad = "  " * indent

    def flat(v: Any) -> bool:
        return not isinstance(v, (dict, list)) or all(not isinstance(x, (dict, list))
                                                     for x in (v.values() if isinstance(v, dict) else v))
    if flat(value) and indent:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        rows = [f"{pad}  {json.dumps(k)}: {layout_text(v, indent + 1)}" for k, v in value.items()]
        text = "{\n" + ",\n".join(rows) + f"\n{pad}}}" if rows else "{}"
    else:
        rows = [f"{pad}  {layout_text(v, indent + 1)}" for v in value]
        text = "[\n" + ",\n".join(rows) + f"\n{pad}]" if rows else "[]"
    return text + ("\n" if not indent else "")


def save_layout(path: str | Path, layout: dict[str, Any]) -> None:
    """Write ``layout`` to ``path`` as :func:`layout_text`. Raises HandFootError naming the file when it cannot."""
    write_text(path, layout_text(layout), "the layout")


def write_text(path: str | Path, text: str, what: str) -> None:
    """Write ``text`` to ``path`` as UTF-8. Raises HandFootError ``could not write {what} {path}: why``."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise HandFootError(f"could not write {what} {path}: {exc.strerror}") from None


def check_annotate_target(target: str, n_photos: int) -> None:
    """Raise HandFootError, before any reading, when ``target`` (``--annotate``) is neither an image name nor a
    folder, names one image while ``n_photos`` are read, or lies in a folder that does not exist (a new folder
    ``target`` itself is made, its parent is not) or under a file."""
    from vision.images import IMAGE_SUFFIXES  # the optional vision extra (OpenCV, ONNX Runtime)

    suffix = Path(target).suffix.lower()
    if suffix and suffix not in IMAGE_SUFFIXES and not Path(target).is_dir():
        raise HandFootError(f"--annotate {target}: give an image name ({', '.join(IMAGE_SUFFIXES)}) or a folder")
    if suffix in IMAGE_SUFFIXES and n_photos > 1:
        raise HandFootError(f"--annotate {target} names one image, but {n_photos} photos are read: give a folder "
                            "(each annotated picture is written there under its photo's name)")
    _check_folder("--annotate", target)  # an image's folder, or the folder's own (made if new)


def check_layout_target(target: str) -> None:
    """Raise HandFootError, before any reading, when ``target`` (``--save-layout``) is a folder, or lies in a folder
    that does not exist or under a file: one line, as :func:`check_annotate_target` says it."""
    check_file_target("--save-layout", target, "layout", "layout.json")


def check_file_target(option: str, target: str, what: str, example: str) -> None:
    """Raise HandFootError, before any work, when ``target`` (the file given to ``option``) is a folder ("give the
    ``what`` file's name, e.g." ``example`` in it), or lies in a folder that does not exist or under a file."""
    if Path(target).expanduser().is_dir():
        raise HandFootError(f"{option} {target}: a folder; give the {what} file's name, e.g. {Path(target) / example}")
    _check_folder(option, target)


def _check_folder(option: str, target: str) -> None:
    """Raise HandFootError when the folder ``target`` (given to ``option``) is written in does not exist (named,
    with "make it first"), a file stands where one of its folders should be, or this user cannot write in it (a
    read-only folder or file: found before the work whose result it would hold)."""
    path = Path(target).expanduser().absolute()
    parent = path.parent
    if not parent.is_dir():
        blocking = next((p for p in [parent, *parent.parents] if p.exists()), None)
        if blocking is not None and not blocking.is_dir():
            raise HandFootError(f"{option} {target}: {blocking} is a file, not a folder")
        raise HandFootError(f"{option} {target}: no such folder {parent} (make it first)")
    folder = path if path.is_dir() else parent  # an existing folder is written in, a new one made in its parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise HandFootError(f"{option} {target}: cannot write in {folder} (a read-only folder?): choose another place")
    if path.is_file() and not os.access(path, os.W_OK):
        raise HandFootError(f"{option} {target}: a read-only file: choose another name")


def write_annotations(target: str, result: PhotoScore, written: Callable[[Path], Any] = lambda dest: None) -> None:
    """Write each photo of ``result`` (read in this process) annotated (:func:`handfoot.core.annotated_image`) where
    :func:`annotation_paths` puts it. ``written(dest)`` is called after each file. Raises HandFootError naming the
    file that could not be written."""
    for k, dest in enumerate(annotation_paths(target, [image.image for image in result.images])):
        write_picture(dest, annotated_image(result, k))
        written(dest)


def annotation_paths(target: str, photos: Sequence[str | Path]) -> list[Path]:
    """Where ``--annotate target`` writes the annotated picture of each of ``photos``: one photo, ``target`` itself
    when it has an image suffix; otherwise ``target`` is a folder of ``<stem>_annotated.jpg``
    (``<stem>_2_annotated.jpg`` ... when two photos share a name)."""
    from vision.images import IMAGE_SUFFIXES  # the optional vision extra (OpenCV, ONNX Runtime)

    out = Path(target)
    if len(photos) == 1 and out.suffix.lower() in IMAGE_SUFFIXES:
        return [out]
    dests, used = [], set()
    for photo in photos:
        base = Path(photo).stem
        stem, k = base, 1
        while stem in used:
            k += 1
            stem = f"{base}_{k}"
        used.add(stem)
        dests.append(out / f"{stem}_annotated.jpg")
    return dests


def write_picture(dest: Path, picture: Any) -> None:
    """Write ``picture`` ((H, W, 3) uint8 BGR) to the image file ``dest``, its folders made. Raises HandFootError
    naming the file, and the file in the way where a folder was needed."""
    import cv2  # OpenCV: the optional vision extra

    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        ok = cv2.imwrite(str(dest), picture)
    except (OSError, cv2.error) as exc:
        why, where = (getattr(exc, "strerror", None) or str(exc)).lower(), getattr(exc, "filename", None)
        if getattr(exc, "errno", None) in (errno.EEXIST, errno.ENOTDIR) and where:
            blocking = next((p for p in [Path(where), *Path(where).parents] if p.is_file()), Path(where))
            why = f"{blocking} is a file, not a folder"
        elif where and str(where) != str(dest):
            why = f"{why} ({where})"
        raise HandFootError(f"could not write the annotated image {dest}: {why}") from None
    if not ok:
        raise HandFootError(f"could not write the annotated image {dest}")


#: photo formats a browser may not show (Chrome shows neither): served as a JPEG copy of the photo as read
NOT_SHOWN = ("HEIC", "TIFF")


def shown_photo(path: Path) -> Path:
    """The file a browser can show for the kept photo ``path``: itself, or for a HEIC or TIFF photo
    (:data:`NOT_SHOWN`) a JPEG copy of it as handfoot reads it (``vision.images.load_photo``: at most 2560 px, the
    pixels the reading's boxes are in), made once beside it as ``<name>.shown.jpg``."""
    import cv2  # OpenCV: the optional vision extra

    from vision.images import image_format, load_photo

    with open(path, "rb") as f:
        if image_format(f.read(64)) not in NOT_SHOWN:
            return path
    copy = path.with_name(path.name + ".shown.jpg")
    if not copy.is_file():
        ok, data = cv2.imencode(".jpg", load_photo(path), [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise HandFootError(f"could not show the photo {path.name} as a JPEG")
        tmp = copy.with_name(f".{copy.name}.{os.getpid()}.{threading.get_ident()}.tmp")  # two phones at once
        tmp.write_bytes(data.tobytes())
        tmp.replace(copy)
    return copy
