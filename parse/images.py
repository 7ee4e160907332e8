"""Pictures: a PDF page rendered, or an uploaded image's frames, scaled to the page image segcite keeps
(about 1.5 megapixels: enough to draw highlights on, small enough to store per page) and encoded."""

from __future__ import annotations

import io
import math
import struct
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import pypdfium2 as pdfium
from PIL import Image, ImageChops, ImageOps, ImageSequence, ImageStat, UnidentifiedImageError

from parse.docai import PageImage
from parse.errors import ParseError

PAGE_IMAGE_PIXELS = 1_500_000
MAX_IMAGE_PIXELS = 40_000_000  # design §3a: a larger image is refused
MAX_RENDER_SCALE = 300 / 72  # a small page (a receipt, a label) is not rendered past 300 dpi
# A page image is drawn in a viewer's column (~700 CSS pixels, twice that on a dense screen): text and line art as a
# PNG of at most 32 colors, a photo or a scan as a JPEG (measured on gnuplot-doc's 311-page manual: 66 KB a page
# as such a PNG, sharp, against 215 KB as a JPEG at quality 85; bench/bench_parse.py prints the size a page).
JPEG_QUALITY = 75
PALETTE_COLORS = 32
# Mean difference (0..255 a channel) between a half-size copy of a picture and its 32 colors: gnuplot-doc's pages
# 1.1 to 1.6 (anti-aliased edges), clean scans of forms and invoices 1.2 to 1.9, photos 2.4 to 7.8 (the fixtures'
# page images). Above it, 32 colors would posterize the picture.
LINE_ART_ERROR = 2.0


def render_page(page: pdfium.PdfPage, pixels: int = PAGE_IMAGE_PIXELS) -> Image.Image:
    """The page as displayed (crop box, /Rotate), at most `pixels` pixels."""
    width, height = page.get_size()
    scale = min(math.sqrt(pixels / max(1.0, width * height)), MAX_RENDER_SCALE)
    return page.render(scale=scale, may_draw_forms=True).to_pil()


def fit(image: Image.Image, pixels: int) -> Image.Image:
    """The image scaled down (never up) to at most `pixels` pixels."""
    width, height = image.size
    if width * height <= pixels:
        return image
    factor = math.sqrt(pixels / (width * height))
    size = (max(1, int(width * factor)), max(1, int(height * factor)))
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def encode(image: Image.Image) -> PageImage:
    """Text and line art as a PNG of at most 32 colors (sharp, and a third of a JPEG's size); a photo or a scan as a
    JPEG, grayscale where it has no color. The palette is found on a half-size copy, then mapped onto the whole
    picture without dithering: a few milliseconds a page."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    palette = _line_art_palette(rgb)
    if palette is not None:
        indexed = rgb.quantize(palette=palette, dither=Image.Dither.NONE)
        return PageImage(_save(indexed, "PNG", compress_level=6), "image/png", rgb.width, rgb.height)
    picture = rgb if _has_color(rgb) else rgb.convert("L")
    return PageImage(_save(picture, "JPEG", quality=JPEG_QUALITY), "image/jpeg", rgb.width, rgb.height)


def _line_art_palette(rgb: Image.Image) -> Image.Image | None:
    """The picture's 32 colors (as a palette image), or None when they would not render it faithfully (a photo)."""
    sample = rgb.reduce(2) if min(rgb.size) >= 64 else rgb
    palette = sample.quantize(colors=PALETTE_COLORS, method=Image.Quantize.FASTOCTREE)
    error = ImageStat.Stat(ImageChops.difference(sample, palette.convert("RGB"))).mean
    return palette if sum(error) / len(error) <= LINE_ART_ERROR else None


def _has_color(image: Image.Image) -> bool:
    """Whether any pixel has R, G and B unequal, checked on a quarter-size copy (a 4x4 average of pixels is gray
    only if they all are, short of colors cancelling out exactly)."""
    if image.mode == "L":
        return False
    small = image.reduce(4) if min(image.size) >= 16 else image
    red, green, blue = small.convert("RGB").split()
    return bool(ImageChops.difference(red, green).getbbox() or ImageChops.difference(green, blue).getbbox())


def _save(image: Image.Image, kind: str, **options: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=kind, **options)
    return buffer.getvalue()


# Pillow reports a damaged file with whatever its decoder met: OSError, ValueError, TypeError ("Missing
# dimensions" from a cut TIFF), KeyError, EOFError, SyntaxError… and warns on bad metadata.
_DAMAGED = (OSError, ValueError, TypeError, KeyError, IndexError, EOFError, SyntaxError, struct.error)
CORRUPT_IMAGE = "the image is corrupt or cannot be read (export it again as PNG or JPEG)"


@contextmanager
def open_image(data: bytes) -> Iterator[Image.Image]:
    """The image, its header read (nothing decoded yet); ParseError when Pillow cannot read it or any frame is
    over 40 megapixels."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a corrupt EXIF block, a large image: said by our errors, or harmless
        try:
            image = Image.open(io.BytesIO(data))
        except Image.DecompressionBombError:
            raise ParseError(_too_large_message(None)) from None
        except (UnidentifiedImageError, *_DAMAGED):
            raise ParseError(CORRUPT_IMAGE) from None
        try:
            try:
                for index in range(frame_count(image)):
                    image.seek(index)
                    if image.width * image.height > MAX_IMAGE_PIXELS:
                        raise ParseError(_too_large_message(image))
                image.seek(0)
            except ParseError:
                raise
            except _DAMAGED:  # (ParseError is a ValueError: let it through first)
                raise ParseError(CORRUPT_IMAGE) from None
            yield image
        finally:
            image.close()


def _too_large_message(image: Image.Image | None) -> str:
    size = f" ({image.width} x {image.height} = {image.width * image.height / 1e6:.1f} megapixels)" if image else ""
    return f"the image is over 40 megapixels{size}: scale it down"


def frame_count(image: Image.Image) -> int:
    """Pages of an image: every frame of a TIFF; the first frame of anything else (a GIF's or WEBP's frames are
    an animation, not pages)."""
    if image.format == "TIFF":
        return getattr(image, "n_frames", 1)
    return 1


def frames(image: Image.Image, pixels: int) -> Iterator[Image.Image]:
    """Each page of the image, decoded one at a time, as RGB or grayscale. A JPEG is decoded straight at a
    fraction of its size (1/2, 1/4, 1/8: libjpeg's own scaling) where that still gives `pixels`: a 40-megapixel
    photo then takes a quarter of its memory and time."""
    if image.format == "JPEG":
        factor = math.sqrt(pixels / max(1, image.width * image.height))
        if factor < 0.5:
            image.draft(image.mode, (math.ceil(image.width * factor), math.ceil(image.height * factor)))
    count = frame_count(image)
    for index, frame in enumerate(ImageSequence.Iterator(image)):
        if index >= count:
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                page = _flatten(ImageOps.exif_transpose(frame) if index == 0 else frame)
        except _DAMAGED:
            where = f"page {index + 1} of the image" if count > 1 else "the image"
            raise ParseError(f"{where} is corrupt or cannot be read (export it again as PNG or JPEG)") from None
        yield page


def _flatten(frame: Image.Image) -> Image.Image:
    """RGB or grayscale, transparency on white (as a viewer shows it; black would hide dark text)."""
    if frame.mode in ("RGB", "L"):
        return frame.copy()
    if frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info:
        rgba = frame.convert("RGBA")
        flat = Image.new("RGB", rgba.size, "white")
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return frame.convert("RGB")
