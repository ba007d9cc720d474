"""Optical character recognition with rapidocr and the models inside its wheel.

Only rapidocr's bundled default models are used (any other model would be downloaded, which Hearth
never does). rapidocr 3.10 bundles PP-OCRv6 small detection and recognition: one multilingual
recognition model for Chinese, Japanese, English and the Latin-script European languages (German
and French read with their umlauts and accents: tests/integration/test_ocr_languages.py), listed
by ``ocr_languages`` from the wheel's own model routes; ``hearth formats`` says which. Images
whose longer side exceeds ``OcrSettings.max_side`` pixels are scaled down to it before
recognition; boxes are mapped back to the original image's pixels. The engine lives in a
:class:`ModelHolder`: loaded on first use, freed after the configured idle time.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from statistics import median
from typing import TYPE_CHECKING, Any

from core.errors import ModelError
from core.holder import ModelHolder
from core.threads import ORT_NO_SPIN, budget

if TYPE_CHECKING:
    from PIL.Image import Image

    from core.settings import OcrSettings

#: Measured (rapidocr 3.10, 2 threads): RSS rose 58 MiB creating the engine, 328 MiB after
#: phototest.png and 413 MiB after an A4 page at 300 dpi (detection input is capped at 2000 px by
#: rapidocr); 133 MiB stayed after unloading. Rounded up.
OCR_RESIDENT_BYTES = 448 * 1024 * 1024


@dataclass(frozen=True)
class OcrFragment:
    """One piece of text rapidocr detected: its text and box ``[x0, y0, x1, y1]`` in pixels."""

    text: str
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: its text, its box ``[x0, y0, x1, y1]`` in pixels, and confidence;
    ``fragments`` are the pieces it was joined from, left to right (a table's cells, a receipt's
    item and price), empty when not known."""

    text: str
    box: tuple[int, int, int, int]
    score: float
    fragments: tuple[OcrFragment, ...] = ()


#: Names of rapidocr's language codes, for ``hearth formats`` (a code not named is shown as is).
LANGUAGE_NAMES = {
    "ch": "Chinese", "chinese_cht": "Chinese (traditional)", "en": "English",
    "japan": "Japanese", "af": "Afrikaans", "az": "Azerbaijani", "bs": "Bosnian",
    "ca": "Catalan", "cs": "Czech", "cy": "Welsh", "da": "Danish", "de": "German",
    "es": "Spanish", "et": "Estonian", "eu": "Basque", "fi": "Finnish", "fr": "French",
    "ga": "Irish", "gl": "Galician", "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian",
    "is": "Icelandic", "it": "Italian", "ku": "Kurdish", "la": "Latin", "lb": "Luxembourgish",
    "lt": "Lithuanian", "lv": "Latvian", "mi": "Maori", "ms": "Malay", "mt": "Maltese",
    "nl": "Dutch", "no": "Norwegian", "oc": "Occitan", "pl": "Polish", "pt": "Portuguese",
    "qu": "Quechua", "rm": "Romansh", "ro": "Romanian", "rs_latin": "Serbian (Latin)",
    "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sv": "Swedish", "sw": "Swahili",
    "tl": "Tagalog", "tr": "Turkish", "uz": "Uzbek", "vi": "Vietnamese",
}  # fmt: skip
#: Codes that only name a language another code already names (rapidocr's aliases).
_ALIASES = {"french", "german"}


def ocr_languages() -> tuple[str, list[str]]:
    """(the bundled recognition model, the languages it reads by name) as the installed
    rapidocr's ``config.yaml`` (its default Rec model) and ``default_models.yaml`` (the
    languages each model serves) say: ("PP-OCRv6 small", ["Chinese", "English", ...]).
    ``ModelError`` when rapidocr is not installed or its files say none."""
    import importlib.util
    from pathlib import Path

    import yaml

    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("OCR engine (rapidocr) is not installed")
    root = Path(next(iter(spec.submodule_search_locations)))
    try:
        rec = yaml.safe_load((root / "config.yaml").read_text())["Rec"]
        version, size = str(rec["ocr_version"]), str(rec["model_type"])
        routes = yaml.safe_load((root / "default_models.yaml").read_text())["model_routes"]
        codes = [str(c) for r in routes[version]["rec"][size] for c in r["supported_langs"]]
    except (OSError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise ModelError(f"rapidocr's model routes could not be read ({exc})") from exc
    names = [LANGUAGE_NAMES.get(c, c) for c in dict.fromkeys(codes) if c not in _ALIASES]
    if not names:
        raise ModelError(f"rapidocr names no language for its {version} {size} model")
    return f"{version} {size}", names


def ocr_description() -> str:
    """One line for ``hearth formats``: the engine, its bundled model and the languages it
    reads ("rapidocr, PP-OCRv6 small (bundled): Chinese, English, ..."); the reason instead
    when they cannot be read."""
    try:
        model, names = ocr_languages()
    except ModelError as exc:
        return f"rapidocr ({exc})"
    return f"rapidocr, {model} (bundled), reads: {', '.join(names)}"


def estimate_resident_bytes(settings: OcrSettings) -> int:
    """Bytes the loaded OCR engine keeps resident (measured, see ``OCR_RESIDENT_BYTES``)."""
    return OCR_RESIDENT_BYTES


def scale_for(width: int, height: int, max_side: int) -> float:
    """The factor (<= 1) that brings the longer side down to ``max_side``."""
    longest = max(width, height)
    return 1.0 if longest <= max_side else max_side / longest


#: Fragments whose tilt-corrected centres lie within this share of the median fragment height
#: are one visual row.
ROW_TOLERANCE = 0.5
#: The steepest text tilt corrected for (tan of about 11 degrees).
MAX_SLOPE = 0.2


def _slope(quads: list[list[tuple[float, float]]]) -> float:
    """The page's text tilt (dy/dx), the median of the top edges of fragments at least twice as
    wide as they are high; 0 when there are none. rapidocr's quads start top-left, clockwise."""
    slopes = []
    for q in quads:
        (x0, y0), (x1, y1) = q[0], q[1]
        height = abs(q[3][1] - q[0][1])
        if x1 - x0 > 2 * max(height, 1.0):
            slopes.append((y1 - y0) / (x1 - x0))
    if not slopes:
        return 0.0
    return max(-MAX_SLOPE, min(MAX_SLOPE, float(median(slopes))))


def _box(points: list[tuple[float, float]]) -> tuple[int, int, int, int]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (int(min(xs)), int(min(ys)), round(max(xs)), round(max(ys)))


def _lines(output: Any, factor: float, min_score: float) -> list[OcrLine]:
    """rapidocr's output as lines in reading order, boxes in original pixels.

    rapidocr detects text fragments, not lines: on a receipt the item and its price, far apart,
    are two fragments, and on a tilted photo the price sits higher than its item. Fragments are
    grouped into visual rows by their centres corrected for the page's tilt (``_slope``), each
    row read left to right and joined with spaces; rows top to bottom."""
    if output is None or output.txts is None or output.boxes is None:
        return []
    kept = []
    for text, quad, score in zip(output.txts, output.boxes, output.scores, strict=True):
        text = str(text).strip()
        if not text or float(score) < min_score:
            continue
        points = [(float(p[0]) / factor, float(p[1]) / factor) for p in quad]
        kept.append((text, points, float(score)))
    if not kept:
        return []
    slope = _slope([points for _, points, _ in kept])
    height = median(max(p[1] for p in pts) - min(p[1] for p in pts) for _, pts, _ in kept)

    def level(points: list[tuple[float, float]]) -> float:
        cx = sum(p[0] for p in points) / len(points)
        cy = sum(p[1] for p in points) / len(points)
        return cy - slope * cx

    rows: list[list[tuple[str, list[tuple[float, float]], float]]] = []
    for item in sorted(kept, key=lambda it: level(it[1])):
        if rows and level(item[1]) - level(rows[-1][0][1]) <= ROW_TOLERANCE * height:
            rows[-1].append(item)
        else:
            rows.append([item])
    lines = []
    for row in rows:
        row.sort(key=lambda it: min(p[0] for p in it[1]))
        box = _box([p for _, pts, _ in row for p in pts])
        score = min(sc for _, _, sc in row)
        pieces = tuple(OcrFragment(text, _box(pts)) for text, pts, _ in row)
        lines.append(OcrLine(" ".join(t for t, _, _ in row), box, round(score, 4), pieces))
    return lines


class OcrModel:
    """Reads the lines of text in an image; the engine loads lazily and frees itself when idle."""

    def __init__(self, settings: OcrSettings) -> None:
        self.settings = settings
        self.holder: ModelHolder[Any] = ModelHolder(
            "ocr",
            self._load,
            idle_seconds=settings.idle_seconds,
            resident=settings.resident,
            resident_bytes=estimate_resident_bytes(settings),
        )

    @staticmethod
    def _load() -> Any:
        try:
            from rapidocr import RapidOCR

            _sessions_without_spinning()
            # onnxruntime fixes its threads at load: the share ingest keeps beside an answer.
            threads = budget().fixed_ingest_threads()
            engine = RapidOCR(
                params={
                    "Global.log_level": "error",
                    "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                }
            )
        except Exception as exc:
            raise ModelError(f"OCR engine (rapidocr) failed to load: {exc}") from exc
        logging.getLogger("RapidOCR").setLevel(logging.ERROR)
        return engine

    def read(self, image: Image) -> list[OcrLine]:
        """Lines of text in ``image`` (top to bottom), scaled down first when oversized."""
        rgb = image.convert("RGB")
        factor = scale_for(rgb.width, rgb.height, self.settings.max_side)
        if factor < 1.0:
            size = (max(1, round(rgb.width * factor)), max(1, round(rgb.height * factor)))
            rgb = rgb.resize(size)
        with self.holder.use() as engine, budget().ingesting():
            output = engine(rgb)
        return _lines(output, factor, self.settings.min_score)


def _sessions_without_spinning() -> None:
    """rapidocr 3 builds its onnxruntime ``SessionOptions`` itself and has no setting for the
    rest: its sessions are told not to spin while their threads wait (``ORT_NO_SPIN``; on a
    busy machine a spinning thread holds a core another program needs). Idempotent."""
    from rapidocr.inference_engine.onnxruntime.main import OrtInferSession

    build = OrtInferSession._init_sess_opts
    if getattr(build, "hearth_no_spin", False):
        return

    def without_spinning(cfg: dict[str, Any]) -> Any:
        options = build(cfg)
        options.add_session_config_entry(*ORT_NO_SPIN)
        return options

    without_spinning.hearth_no_spin = True  # type: ignore[attr-defined]
    OrtInferSession._init_sess_opts = staticmethod(without_spinning)  # type: ignore[method-assign]
