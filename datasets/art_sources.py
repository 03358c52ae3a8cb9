"""Where the card art comes from: the deck designs (which package, which file and which layout each one is;
the training and held-out lists) and fetching their packages into the cache.

Sources (see ``../shared/cardart.md``): Debian packages ``gnome-cards-data`` and ``aisleriot`` (aisleriot
sheets, GPL/LGPL), ``kdegames-card-data-kf5`` (KDE decks, GPL) and the npm packages
``@heruka_urgyen/react-playing-cards`` (Adrian Kennard's CC0 cards) and ``@younestouati/playing-cards-standard-deck``
(Chris Aguilar's LGPL cards). Everything is fetched with the ordinary clients (``apt-get download``, ``npm pack``)
into a cache outside git (``$HANDFOOT_CACHE`` or ``~/.cache/handfoot``), unpacked under
``<cache>/cardart/raw/``; ship weights and code, never the renders.
The entry point that renders a design is :func:`datasets.cardart.load_deck`.
"""
from __future__ import annotations

import gzip
import io
import lzma
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

CACHE_DIR: Path = Path(os.environ.get("HANDFOOT_CACHE") or (Path.home() / ".cache" / "handfoot"))

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
CARD_CODES = tuple(r + s for s in SUITS for r in RANKS)


# --------------------------------------------------------------------------------------------- sources

# package -> (source group, kind, pinned npm version or None)
_PACKAGES: dict[str, tuple[str, str, str | None]] = {
    "gnome-cards-data": ("aisleriot", "deb", None),
    "aisleriot": ("aisleriot", "deb", None),  # only for bonded.svgz
    "kdegames-card-data-kf5": ("kde", "deb", None),
    "@heruka_urgyen/react-playing-cards": ("npm", "npm", "0.5.0"),
    "@younestouati/playing-cards-standard-deck": ("npm", "npm", "3.0.0"),
}
# Only these parts of the packages are unpacked.
_KEEP_PREFIXES = ("usr/share/aisleriot/cards/", "usr/share/carddecks/", "package/src/images/", "package/cards/",
                  "package/LICENSE", "package/README", "package/package.json", "usr/share/doc/")

_TIMEOUT_S = 300  # per download command

_AR_CARDS = "usr/share/aisleriot/cards"
_KDE_CARDS = "usr/share/carddecks"
_KENNARD = "package/src/images"


@dataclass(frozen=True)
class _Spec:
    name: str
    package: str
    path: str  # file or folder inside the unpacked package
    kind: str  # "sheet" (aisleriot 13x5 grid), "kde" (one element per card), "kennard", "aguilar"
    four_index: bool = False  # index in all four corners
    joker_corners: tuple[str, ...] = ("tl",)  # corners holding a joker mark: "tl" and/or "tr"; () = none
    region: tuple[float, float] = (0.26, 0.30)  # initial index search region (fraction of width, height)
    joker_region: tuple[float, float] = (0.30, 0.50)  # initial joker-mark search region

    @property
    def source(self) -> str:
        return _PACKAGES[self.package][0]


def _ar(name: str, **kw) -> _Spec:
    pkg = "aisleriot" if name == "bonded" else "gnome-cards-data"
    return _Spec(name, pkg, f"{_AR_CARDS}/{name}.svgz", "sheet", **kw)


def _kde(name: str, folder: str, file: str, **kw) -> _Spec:
    return _Spec(name, "kdegames-card-data-kf5", f"{_KDE_CARDS}/{folder}/{file}", "kde", **kw)


_SPECS: dict[str, _Spec] = {s.name: s for s in [
    # aisleriot sheets (gnome-cards-data; bonded from aisleriot). Left out: paris (bellot again),
    # gnomangelo* and anglo_bitmap (anglo again), *_4_color, tango_nuevo (rank and suit split across the
    # top), guyenne-classic (courts without rank letters), ancient_french, berlin, lattmann, rheinland,
    # atlasnye_skat, Атласные, slavic_costumes, tarocco, swiss-xvii (non-English court letters or suits).
    _ar("anglo"),
    _ar("anglo_modern"),
    _ar("anglo_poker"),
    _ar("atlasnye"),
    _ar("bellot"),
    _ar("bonded", four_index=True),
    _ar("dondorf", four_index=True, joker_corners=()),
    _ar("neoclassical", joker_corners=("tl", "tr")),
    _ar("orell"),
    _ar("ornamental"),
    _ar("plastic"),
    _ar("simplistic"),
    _ar("tango"),
    _ar("tigullio"),
    # KDE decks. Left out: oxygen, oxygen-air, oxygen-white (rank and suit split across the top edge, no
    # rank+pip index), jolly-royal (pips joined to decorative lines), ancient-egyptians (upright rank alone
    # in the bottom corner), tigullio-international (the aisleriot tigullio art again), gm-paris and
    # nicu-ornamental (aisleriot paris/ornamental again), dondorf (aisleriot's), future, konqi-modern
    # (licence), xskat-* (German court letters / suits).
    _kde("kde_nicu_white", "svg-nicu-white", "white.svgz"),
    _kde("kde_penguins", "svg-penguins", "penguins.svgz"),
    _kde("kde_standard", "svg-standard", "standard.svgz"),
    # npm
    _Spec("kennard", "@heruka_urgyen/react-playing-cards", f"{_KENNARD}/2color", "kennard", joker_corners=()),
    _Spec("kennard_bigindex", "@heruka_urgyen/react-playing-cards", f"{_KENNARD}/2color-bf", "kennard",
          joker_corners=()),
    _Spec("kennard_4color", "@heruka_urgyen/react-playing-cards", f"{_KENNARD}/4color", "kennard",
          joker_corners=()),  # four-colour suits: loadable, but in neither design list
    _Spec("aguilar", "@younestouati/playing-cards-standard-deck", "package/cards", "aguilar",
          joker_corners=("tl", "tr")),  # its one joker has a star in every corner
]}

TRAIN_DESIGNS: tuple[str, ...] = (
    "anglo", "anglo_modern", "anglo_poker", "atlasnye", "bellot", "bonded", "dondorf", "neoclassical",
    "ornamental", "plastic", "simplistic", "tango",
    "kde_nicu_white", "kde_penguins", "kde_standard",
    "kennard", "kennard_bigindex",
)
#: Validation only: never train on these. orell and tigullio (aisleriot), aguilar (npm).
HELDOUT_DESIGNS: tuple[str, ...] = ("orell", "tigullio", "aguilar")


# --------------------------------------------------------------------------------------------- fetching

def _root(cache_dir) -> Path:
    return Path(cache_dir if cache_dir is not None else CACHE_DIR) / "cardart"


def _pkg_dir(raw: Path, package: str) -> Path:
    return raw / re.sub(r"[^A-Za-z0-9_.-]+", "_", package.lstrip("@"))


def _extract_deb(deb: Path, dest: Path) -> None:
    """Unpack the data member of a .deb (ar archive) without dpkg; keeps only the card folders."""
    data = deb.read_bytes()
    if not data.startswith(b"!<arch>\n"):
        raise RuntimeError(f"{deb} is not a Debian package")
    pos = 8
    while pos + 60 <= len(data):
        hdr = data[pos:pos + 60]
        name = hdr[:16].decode().strip().rstrip("/")
        size = int(hdr[48:58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size & 1)
        if name.startswith("data.tar"):
            if name.endswith(".xz"):
                body = lzma.decompress(body)
            elif name.endswith(".gz"):
                body = gzip.decompress(body)
            elif name.endswith(".zst"):
                if shutil.which("dpkg"):
                    subprocess.run(["dpkg", "-x", str(deb), str(dest)], check=True, capture_output=True)
                    return
                raise RuntimeError(f"{deb}: zstd data member needs dpkg")
            _extract_tar(tarfile.open(fileobj=io.BytesIO(body)), dest)
            return
    raise RuntimeError(f"{deb}: no data member")


def _extract_tar(tf: tarfile.TarFile, dest: Path) -> None:
    members = []
    for m in tf.getmembers():
        name = m.name[2:] if m.name.startswith("./") else m.name
        if not (m.isfile() or m.isdir()) or ".." in Path(name).parts or name.startswith("/"):
            continue
        if name.startswith(_KEEP_PREFIXES):
            m.name = name
            members.append(m)
    try:
        tf.extractall(dest, members=members, filter="data")
    except TypeError:  # Python < 3.12
        tf.extractall(dest, members=members)


def _fetch_with(tool: str, cmd: list[str], what: str, downloads: Path, pattern: str, hint: str = "") -> Path:
    """Run ``cmd`` (``apt-get download`` / ``npm pack``) in ``downloads`` unless a file matching ``pattern`` is
    already there; returns that file. Raises RuntimeError naming ``what`` on a missing tool, a timeout or a
    failure."""
    have = sorted(downloads.glob(pattern))
    if have:
        return have[-1]
    if not shutil.which(tool):
        raise RuntimeError(f"cannot download {what}: {tool} not found")
    try:
        r = subprocess.run(cmd, cwd=downloads, capture_output=True, text=True, timeout=_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"{' '.join(cmd[:2])} {what} timed out after {_TIMEOUT_S} s") from e
    have = sorted(downloads.glob(pattern))
    if r.returncode != 0 or not have:
        raise RuntimeError(f"{' '.join(cmd[:2])} {what} failed (rc {r.returncode}): "
                           f"{(r.stderr or r.stdout).strip()[-400:]}{hint}")
    return have[-1]


def _download(package: str, downloads: Path, quiet: bool) -> Path:
    group, kind, version = _PACKAGES[package]
    downloads.mkdir(parents=True, exist_ok=True)
    if kind == "deb":
        return _fetch_with("apt-get", ["apt-get", "download", package], f"Debian package {package}", downloads,
                           f"{package}_*.deb", " -- try 'apt-get update' first")
    spec = f"{package}@{version}" if version else package
    stem = package.lstrip("@").replace("/", "-")
    return _fetch_with("npm", ["npm", "pack", spec, "--silent"], f"npm package {spec}", downloads, f"{stem}-*.tgz")

def fetch_cardart(sources=("aisleriot", "kde", "npm"), cache_dir=None, quiet=False) -> Path:
    """Download and unpack the card-art packages of ``sources`` into ``<cache>/cardart/raw``.

    ``sources`` is any of ``"aisleriot"`` (Debian gnome-cards-data + aisleriot), ``"kde"`` (Debian
    kdegames-card-data-kf5) and ``"npm"`` (Kennard and Aguilar npm decks). Idempotent: packages already
    unpacked are skipped, so a second call does no network access. Needs ``apt-get`` (with package lists)
    for the Debian sources and ``npm`` for the npm ones.

    Returns the raw folder. Raises ``RuntimeError`` naming the package when a download or unpack fails,
    and ``ValueError`` for an unknown source name.
    """
    if isinstance(sources, str):
        sources = (sources,)
    known = {g for g, _, _ in _PACKAGES.values()}
    bad = [s for s in sources if s not in known]
    if bad:
        raise ValueError(f"unknown card-art source(s) {bad}; choose from {sorted(known)}")
    raw = _root(cache_dir) / "raw"
    downloads = raw / "downloads"
    for package, (group, kind, _) in _PACKAGES.items():
        if group not in sources:
            continue
        dest = _pkg_dir(raw, package)
        if (dest / ".done").exists():
            continue
        t0 = time.time()
        archive = _download(package, downloads, quiet)
        tmp = Path(tempfile.mkdtemp(prefix=".unpack-", dir=raw))
        try:
            if kind == "deb":
                _extract_deb(archive, tmp)
            else:
                with tarfile.open(archive) as tf:
                    _extract_tar(tf, tmp)
            (tmp / ".done").write_text(archive.name + "\n")
            if dest.exists():
                shutil.rmtree(dest)
            os.replace(tmp, dest)
        except Exception as e:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(e, RuntimeError):
                raise
            raise RuntimeError(f"unpacking {archive.name} for {package} failed: {e}") from e
        if not quiet:
            print(f"cardart: {package} -> {dest} ({time.time() - t0:.1f} s)", file=sys.stderr)
    return raw


def _design_path(spec: _Spec, cache_dir) -> Path:
    return _pkg_dir(_root(cache_dir) / "raw", spec.package) / spec.path


def design_names(spec: str) -> list[str]:
    """Design names from a comma-separated ``spec`` of names and groups: ``train`` (:data:`TRAIN_DESIGNS`),
    ``heldout`` (:data:`HELDOUT_DESIGNS`), ``all`` (both) and ``every`` (every known design, listed ones too);
    in order, each once. Names are not checked here (``load_deck`` raises for an unknown one)."""
    groups = {"train": list(TRAIN_DESIGNS), "heldout": list(HELDOUT_DESIGNS),
              "all": list(TRAIN_DESIGNS + HELDOUT_DESIGNS), "every": list(_SPECS)}
    names: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if part:
            names += groups.get(part, [part])
    return list(dict.fromkeys(names))


def available_designs(cache_dir=None) -> list[str]:
    """Names of the designs whose source art is already in the cache (fetched), or already rendered there (a
    cache unpacked by ``datasets.artpack`` on a machine that cannot fetch), sorted.

    Includes designs in neither TRAIN_DESIGNS nor HELDOUT_DESIGNS (e.g. ``kennard_4color``). Does not
    download or render anything.
    """
    rendered = _root(cache_dir) / "rendered"
    return sorted(n for n, s in _SPECS.items()
                  if _design_path(s, cache_dir).exists() or any(rendered.glob(f"{n}/*/boxes.json")))
