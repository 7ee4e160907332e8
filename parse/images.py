"""Pictures: a PDF page rendered, or an uploaded image's frames, scaled to the page image segcite keeps
(about 1.5 megapixels: enough to draw highlights on, small enough to store per page) and encoded."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from contextlib import contextmanager

import pypdfium2 as pdfium
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

from parse.docai import PageImage
from parse.errors import ParseError

PAGE_IMAGE_PIXELS = 1_500_000
MAX_IMAGE_PIXELS = 40_000_000  # design §3a: a larger image is refused
MAX_RENDER_SCALE = 300 / 72  # a small page (a receipt, a label) is not rendered past 300 dpi
JPEG_QUALITY = 85


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
    """JPEG: a tenth of PNG's encoding time on a rendered page, and the page image is only drawn on."""
    if image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return PageImage(buffer.getvalue(), "image/jpeg", image.width, image.height)


@contextmanager
def open_image(data: bytes) -> Iterator[Image.Image]:
    """The image, its header read (nothing decoded yet); ParseError when Pillow cannot read it or any frame is
    over 40 megapixels."""
    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise ParseError(_too_large_message(None)) from None
    except (UnidentifiedImageError, OSError, ValueError):
        raise ParseError("the image is corrupt or cannot be read (export it again as PNG or JPEG)") from None
    try:
        for index in range(frame_count(image)):
            image.seek(index)
            if image.width * image.height > MAX_IMAGE_PIXELS:
                raise ParseError(_too_large_message(image))
        image.seek(0)
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


def frames(image: Image.Image) -> Iterator[Image.Image]:
    """Each page of the image, decoded one at a time, as RGB or grayscale."""
    count = frame_count(image)
    for index, frame in enumerate(ImageSequence.Iterator(image)):
        if index >= count:
            return
        try:
            yield _flatten(ImageOps.exif_transpose(frame) if index == 0 else frame)
        except (OSError, ValueError):
            raise ParseError(f"page {index + 1} of the image is corrupt or cannot be read") from None


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
