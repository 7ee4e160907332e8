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
from PIL import Image, ImageChops, ImageOps, ImageSequence, UnidentifiedImageError

from parse.docai import PageImage
from parse.errors import ParseError

PAGE_IMAGE_PIXELS = 1_500_000
MAX_IMAGE_PIXELS = 40_000_000  # design §3a: a larger image is refused
MAX_RENDER_SCALE = 300 / 72  # a small page (a receipt, a label) is not rendered past 300 dpi
JPEG_QUALITY = 85
_SMALL_PNG = 0.12  # bytes a pixel: a grayscale JPEG of a page of text at JPEG_QUALITY takes ~0.2


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
    """A page without color (text, a gray scan) as the smaller of a grayscale PNG and JPEG: a page of text is half
    the JPEG's size as a PNG, and sharp; anything else as a JPEG. PNG at zlib level 1: level 6 takes four times
    as long for a few percent."""
    if not _has_color(image):
        gray = image.convert("L")
        png = _save(gray, "PNG", compress_level=1)
        if len(png) <= _SMALL_PNG * gray.width * gray.height:  # text: a JPEG would be larger, no need to try
            return PageImage(png, "image/png", gray.width, gray.height)
        jpeg = _save(gray, "JPEG", quality=JPEG_QUALITY)
        if len(png) <= len(jpeg):
            return PageImage(png, "image/png", gray.width, gray.height)
        return PageImage(jpeg, "image/jpeg", gray.width, gray.height)
    color = image if image.mode == "RGB" else image.convert("RGB")
    return PageImage(_save(color, "JPEG", quality=JPEG_QUALITY), "image/jpeg", color.width, color.height)


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
