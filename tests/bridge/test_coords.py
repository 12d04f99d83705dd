"""Property-based tests of bridge.coords: round trips, the rotation group, ranges, smart_resize."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bridge import coords
from bridge.coords import (
    FloatPoint,
    IntPoint,
    Rotation,
    ScreenGeometry,
    Size,
    Viewport,
    css_to_normalized,
    css_to_pixel,
    grid_to_normalized,
    logical_to_natural,
    natural_to_logical,
    normalized_to_css,
    normalized_to_grid,
    normalized_to_pixel,
    normalized_to_resized,
    pixel_to_css,
    pixel_to_normalized,
    resized_to_normalized,
    rotate_normalized,
    rotate_pixel,
    rotation_from_surface,
    smart_resize,
)
from bridge.errors import CoordinateError

ROTATIONS: tuple[Rotation, ...] = (0, 90, 180, 270)
REDMI = ScreenGeometry(width_px=1080, height_px=2400)

sides = st.integers(min_value=100, max_value=4000)
sizes = st.builds(Size, sides, sides)
rotations = st.sampled_from(ROTATIONS)
geometries = st.builds(
    lambda w, h, r: ScreenGeometry(width_px=w, height_px=h, rotation=r), sides, sides, rotations
)
unit = st.floats(min_value=0.0, max_value=1.0)


@st.composite
def frame_and_pixel(draw: st.DrawFn) -> tuple[Size, int, int]:
    frame = draw(sizes)
    x = draw(st.integers(0, frame.width - 1))
    return frame, x, draw(st.integers(0, frame.height - 1))


@st.composite
def geometry_and_logical_pixel(draw: st.DrawFn) -> tuple[ScreenGeometry, int, int]:
    geometry = draw(geometries)
    size = geometry.logical_size
    x = draw(st.integers(0, size.width - 1))
    return geometry, x, draw(st.integers(0, size.height - 1))


# --- geometry ---------------------------------------------------------------------------


def test_logical_size_swaps_at_90_and_270() -> None:
    expected: dict[Rotation, Size] = {
        0: Size(1080, 2400),
        90: Size(2400, 1080),
        180: Size(1080, 2400),
        270: Size(2400, 1080),
    }
    for rotation, size in expected.items():
        geometry = ScreenGeometry(width_px=1080, height_px=2400, rotation=rotation)
        assert geometry.logical_size == size
        assert geometry.natural_size == Size(1080, 2400)


@given(geometries)
def test_from_logical_inverts_logical_size(geometry: ScreenGeometry) -> None:
    size = geometry.logical_size
    assert ScreenGeometry.from_logical(size.width, size.height, geometry.rotation) == geometry


@pytest.mark.parametrize(
    "kwargs",
    [
        {"width_px": 0, "height_px": 2400},
        {"width_px": 1080, "height_px": 2400, "rotation": 45},
        {"width_px": 1080.5, "height_px": 2400},
        {"width_px": 1080, "height_px": 2400, "dpi": 440},
    ],
)
def test_screen_geometry_rejects_bad_fields(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ScreenGeometry.model_validate(kwargs)


def test_screen_geometry_is_frozen() -> None:
    with pytest.raises(ValidationError):
        REDMI.rotation = 90  # type: ignore[misc]


def test_size_is_not_unpackable_and_must_be_positive() -> None:
    with pytest.raises(TypeError):
        _width, _height = Size(1080, 2400)  # type: ignore[misc]
    with pytest.raises(CoordinateError, match="0x2400"):
        Size(0, 2400)
    assert str(Size(1080, 2400)) == "1080x2400"


@pytest.mark.parametrize(
    ("index", "degrees"), [(0, 0), (1, 90), (2, 180), (3, 270), ("1", 90), (" 3 ", 270)]
)
def test_rotation_from_surface(index: int | str, degrees: int) -> None:
    assert rotation_from_surface(index) == degrees


@pytest.mark.parametrize("index", [4, -1, "4", "1.0", "", "ninety"])
def test_rotation_from_surface_rejects_other_values(index: int | str) -> None:
    with pytest.raises(CoordinateError, match="0, 1, 2, 3"):
        rotation_from_surface(index)


# --- normalized <-> pixels ----------------------------------------------------------------


@given(frame_and_pixel())
def test_pixel_normalized_pixel_is_exact(case: tuple[Size, int, int]) -> None:
    frame, x, y = case
    nx, ny = pixel_to_normalized(x, y, frame)
    assert normalized_to_pixel(nx, ny, frame) == IntPoint(x, y)


@given(geometries, unit, unit)
def test_normalized_pixel_normalized_within_one_pixel(
    geometry: ScreenGeometry, x: float, y: float
) -> None:
    frame = geometry.logical_size
    px, py = normalized_to_pixel(x, y, frame)
    assert 0 <= px < frame.width and 0 <= py < frame.height
    back = pixel_to_normalized(px, py, frame)
    assert abs(back.x - x) <= 1 / frame.width
    assert abs(back.y - y) <= 1 / frame.height


@given(frame_and_pixel())
def test_pixel_left_edge_belongs_to_that_pixel(case: tuple[Size, int, int]) -> None:
    # p / W is the left edge of pixel p even when p / W * W rounds to just below p.
    frame, x, y = case
    assert normalized_to_pixel(x / frame.width, y / frame.height, frame) == IntPoint(x, y)


def test_left_edge_survives_float_error() -> None:
    assert 0.29 * 100 < 29
    assert normalized_to_pixel(0.29, 0.0, Size(100, 100)) == IntPoint(29, 0)


@given(geometries)
def test_corners_map_to_first_and_last_pixel(geometry: ScreenGeometry) -> None:
    frame = geometry.logical_size
    assert normalized_to_pixel(0.0, 0.0, frame) == IntPoint(0, 0)
    assert normalized_to_pixel(1.0, 1.0, frame) == IntPoint(frame.width - 1, frame.height - 1)
    assert normalized_to_pixel(1.0, 0.0, frame) == IntPoint(frame.width - 1, 0)


def test_redmi_centre_and_known_pixels() -> None:
    frame = REDMI.logical_size
    assert normalized_to_pixel(0.5, 0.5, frame) == IntPoint(540, 1200)
    assert pixel_to_normalized(0, 0, frame) == FloatPoint(0.5 / 1080, 0.5 / 2400)
    assert pixel_to_normalized(1079, 2399, frame) == FloatPoint(1079.5 / 1080, 2399.5 / 2400)


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        (1.2, 0.5, r"x=1.2 is outside \[0, 1\] \(normalized"),
        (0.5, -0.1, r"y=-0.1 is outside \[0, 1\]"),
        (math.nan, 0.5, r"x=nan is not a finite number \(normalized"),
        (0.5, math.inf, r"y=inf is not a finite number"),
    ],
)
def test_normalized_out_of_range_raises(x: float, y: float, message: str) -> None:
    with pytest.raises(CoordinateError, match=message):
        normalized_to_pixel(x, y, REDMI.logical_size)
    with pytest.raises(ValueError, match=message):  # CoordinateError is a ValueError
        rotate_normalized(x, y, 90)


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        (1080, 0, r"x=1080 is outside \[0, 1079\] \(pixel frame 1080x2400\)"),
        (0, 2400, r"y=2400 is outside \[0, 2399\] \(pixel frame 1080x2400\)"),
        (-1, 0, r"x=-1 is outside"),
    ],
)
def test_pixel_out_of_frame_raises(x: int, y: int, message: str) -> None:
    with pytest.raises(CoordinateError, match=message):
        pixel_to_normalized(x, y, REDMI.logical_size)
    with pytest.raises(CoordinateError, match=message):
        natural_to_logical(x, y, REDMI)


def test_pixel_must_be_an_integer() -> None:
    with pytest.raises(TypeError):
        pixel_to_normalized(10.5, 0, REDMI.logical_size)  # type: ignore[arg-type]


# --- rotation ----------------------------------------------------------------------------


def _rotate_n(x: int, y: int, frame: Size, rotation: Rotation, times: int) -> tuple[int, int, Size]:
    for _ in range(times):
        x, y = rotate_pixel(x, y, frame, rotation)
        frame = frame.rotated(rotation)
    return x, y, frame


@given(frame_and_pixel())
def test_four_quarter_turns_are_the_identity(case: tuple[Size, int, int]) -> None:
    frame, x, y = case
    assert _rotate_n(x, y, frame, 90, 4) == (x, y, frame)
    assert _rotate_n(x, y, frame, 90, 2)[:2] == tuple(rotate_pixel(x, y, frame, 180))


@given(frame_and_pixel(), rotations, rotations)
def test_rotations_compose_like_angles(
    case: tuple[Size, int, int], first: Rotation, second: Rotation
) -> None:
    frame, x, y = case
    mx, my = rotate_pixel(x, y, frame, first)
    composed = rotate_pixel(mx, my, frame.rotated(first), second)
    total: Rotation = ROTATIONS[(first + second) % 360 // 90]
    assert composed == rotate_pixel(x, y, frame, total)


@given(frame_and_pixel())
def test_90_then_270_is_the_identity(case: tuple[Size, int, int]) -> None:
    frame, x, y = case
    mx, my = rotate_pixel(x, y, frame, 90)
    assert rotate_pixel(mx, my, frame.rotated(90), 270) == IntPoint(x, y)


@given(geometry_and_logical_pixel())
def test_logical_natural_are_exact_inverses(case: tuple[ScreenGeometry, int, int]) -> None:
    geometry, x, y = case
    nx, ny = logical_to_natural(x, y, geometry)
    natural = geometry.natural_size
    assert 0 <= nx < natural.width and 0 <= ny < natural.height
    assert natural_to_logical(nx, ny, geometry) == IntPoint(x, y)


@pytest.mark.parametrize(
    ("rotation", "top_left", "bottom_right"),
    [
        (0, (0, 0), (1079, 2399)),
        (90, (1079, 0), (0, 2399)),  # turned counter-clockwise: panel's top edge on the left
        (180, (1079, 2399), (0, 0)),
        (270, (0, 2399), (1079, 0)),
    ],
)
def test_logical_corners_on_the_panel(
    rotation: Rotation, top_left: tuple[int, int], bottom_right: tuple[int, int]
) -> None:
    geometry = ScreenGeometry(width_px=1080, height_px=2400, rotation=rotation)
    last = geometry.logical_size
    assert logical_to_natural(0, 0, geometry) == top_left
    assert logical_to_natural(last.width - 1, last.height - 1, geometry) == bottom_right


def test_rotation_90_matches_aosp_rotate_and_scale() -> None:
    # inputflinger, DISPLAY_ORIENTATION_90: x = yScaled, y = xScaledMax (= W - 1 - x).
    geometry = ScreenGeometry(width_px=1080, height_px=2400, rotation=90)
    assert natural_to_logical(100, 200, geometry) == IntPoint(200, 979)


@given(frame_and_pixel(), rotations)
def test_rotate_normalized_agrees_with_pixel_centres(
    case: tuple[Size, int, int], rotation: Rotation
) -> None:
    frame, x, y = case
    via_norm = rotate_normalized(*pixel_to_normalized(x, y, frame), rotation)
    rotated = rotate_pixel(x, y, frame, rotation)
    expected = pixel_to_normalized(rotated.x, rotated.y, frame.rotated(rotation))
    assert via_norm.x == pytest.approx(expected.x, abs=1e-12)
    assert via_norm.y == pytest.approx(expected.y, abs=1e-12)


def test_invalid_rotation_raises() -> None:
    with pytest.raises(CoordinateError, match="rotation=45"):
        rotate_pixel(0, 0, Size(10, 10), 45)  # type: ignore[arg-type]


# --- CSS ---------------------------------------------------------------------------------

viewports = st.builds(
    Viewport,
    width_css=st.integers(100, 1500).map(float),
    height_css=st.integers(100, 1500).map(float),
    dpr=st.sampled_from([1.0, 1.5, 2.0, 2.625, 2.75, 3.0, 3.5, 4.0]),
)


def test_viewport_pixel_size() -> None:
    assert Viewport(width_css=360, height_css=800, dpr=3).pixel_size == Size(1080, 2400)
    assert Viewport(width_css=1080 / 2.75, height_css=2400 / 2.75, dpr=2.75).pixel_size == Size(
        1080, 2400
    )
    # Pixel 5: 411 CSS px at DPR 2.625 is 1078.875 device px, rounded to the nearest.
    assert Viewport(width_css=411, height_css=914, dpr=2.625).pixel_size == Size(1079, 2399)
    assert css_to_pixel(360, 800, Viewport(width_css=360, height_css=800, dpr=3)) == (1079, 2399)
    assert css_to_pixel(100.2, 0, Viewport(width_css=360, height_css=800, dpr=3)) == (300, 0)


@given(viewports, st.data())
def test_css_pixel_css_within_one_device_pixel(viewport: Viewport, data: st.DataObject) -> None:
    cx = data.draw(st.floats(0, viewport.width_css))
    cy = data.draw(st.floats(0, viewport.height_css))
    back = pixel_to_css(*css_to_pixel(cx, cy, viewport), viewport)
    assert abs(back.x - cx) <= 1 / viewport.dpr + 1e-9
    assert abs(back.y - cy) <= 1 / viewport.dpr + 1e-9


@given(viewports, st.data())
def test_pixel_css_pixel_is_exact(viewport: Viewport, data: st.DataObject) -> None:
    frame = viewport.pixel_size
    px = data.draw(st.integers(0, frame.width - 1))
    py = data.draw(st.integers(0, frame.height - 1))
    assert css_to_pixel(*pixel_to_css(px, py, viewport), viewport) == IntPoint(px, py)


@given(viewports, unit, unit)
def test_normalized_css_round_trip(viewport: Viewport, x: float, y: float) -> None:
    cx, cy = normalized_to_css(x, y, viewport)
    assert 0 <= cx <= viewport.width_css and 0 <= cy <= viewport.height_css
    back = css_to_normalized(cx, cy, viewport)
    assert back.x == pytest.approx(x, abs=1e-12)
    assert back.y == pytest.approx(y, abs=1e-12)


def test_css_out_of_viewport_raises() -> None:
    viewport = Viewport(width_css=360, height_css=800, dpr=3)
    with pytest.raises(CoordinateError, match=r"x=361 is outside \[0, 360\] \(CSS viewport"):
        css_to_normalized(361, 0, viewport)
    with pytest.raises(CoordinateError, match="y=nan"):
        css_to_pixel(0, math.nan, viewport)
    with pytest.raises(ValidationError):
        Viewport(width_css=360, height_css=800, dpr=0)


# --- grids -------------------------------------------------------------------------------

scales = st.sampled_from([999, 1000])


@given(scales, unit, unit)
def test_normalized_grid_normalized_within_one_unit(scale: int, x: float, y: float) -> None:
    gx, gy = normalized_to_grid(x, y, scale)
    assert 0 <= gx <= scale and 0 <= gy <= scale
    back = grid_to_normalized(gx, gy, scale)
    assert abs(back.x - x) <= 1 / scale
    assert abs(back.y - y) <= 1 / scale


@given(scales, st.data())
def test_grid_normalized_grid_is_exact(scale: int, data: st.DataObject) -> None:
    gx, gy = data.draw(st.integers(0, scale)), data.draw(st.integers(0, scale))
    assert normalized_to_grid(*grid_to_normalized(gx, gy, scale), scale) == IntPoint(gx, gy)


def test_grid_known_values() -> None:
    assert grid_to_normalized(500, 1000, 1000) == FloatPoint(0.5, 1.0)
    assert grid_to_normalized(999, 0, 999) == FloatPoint(1.0, 0.0)
    assert normalized_to_grid(1.0, 0.5, 999) == IntPoint(999, 500)  # 499.5 ties to even
    tap = normalized_to_pixel(*grid_to_normalized(447, 81, 999), Size(1440, 3120))
    assert tap == IntPoint(644, 252)  # Qwen3-VL cookbook example, floor(447 / 999 * 1440)


def test_grid_out_of_range_raises_unless_clamped() -> None:
    with pytest.raises(
        CoordinateError, match=r"x=1000 is outside \[0, 999\] \(model frame 999x999; clamp=True"
    ):
        grid_to_normalized(1000, 10, 999)
    assert grid_to_normalized(1000, 10, 999, clamp=True) == FloatPoint(1.0, 10 / 999)
    assert grid_to_normalized(-3, 1200, 1000, clamp=True) == FloatPoint(0.0, 1.0)
    with pytest.raises(CoordinateError, match="not a finite number"):
        grid_to_normalized(math.nan, 10, 1000, clamp=True)


@given(scales, st.floats(allow_nan=False, allow_infinity=False), st.floats(0, 1000))
def test_clamped_grid_is_always_normalized(scale: int, x: float, y: float) -> None:
    nx, ny = grid_to_normalized(x, min(y, scale), scale, clamp=True)
    assert 0.0 <= nx <= 1.0 and 0.0 <= ny <= 1.0
    if 0 <= x <= scale:
        assert nx == x / scale


# --- smart_resize and resized-image pixels -------------------------------------------------


def test_smart_resize_known_values() -> None:
    assert smart_resize(2400, 1080, 28, 3136, 12845056) == Size(width=1092, height=2408)
    assert smart_resize(2400, 1080, coords.QWEN3_VL_FACTOR, 65536, 16777216) == Size(1088, 2400)
    assert smart_resize(3120, 1440, 28, 3136, 12845056) == Size(width=1428, height=3108)
    assert smart_resize(30, 30, 28, 56 * 56 * 4, 12845056) == Size(112, 112)  # grows to min


@given(
    st.integers(28, 4000),
    st.integers(28, 4000),
    st.sampled_from([coords.QWEN2_5_VL_FACTOR, coords.QWEN3_VL_FACTOR]),
    st.sampled_from([(3136, 12845056), (78400, 12845056), (784, 1003520), (65536, 16777216)]),
)
def test_smart_resize_properties(
    height: int, width: int, factor: int, limits: tuple[int, int]
) -> None:
    min_pixels, max_pixels = limits
    if height < factor or width < factor or max(height, width) / min(height, width) > 200:
        return
    size = smart_resize(height, width, factor, min_pixels, max_pixels)
    assert size.width % factor == 0 and size.height % factor == 0
    assert min_pixels <= size.width * size.height <= max_pixels
    # Both sides are within one factor step of a common scaling of the original.
    assert abs(size.width * height - size.height * width) <= factor * (height + width)


@pytest.mark.parametrize(
    ("height", "width", "message"),
    [
        (27, 1000, "smaller than the resize factor 28"),
        (1000, 20, "smaller than the resize factor 28"),
        (28, 28 * 201, "aspect ratio above 200"),
    ],
)
def test_smart_resize_errors(height: int, width: int, message: str) -> None:
    with pytest.raises(CoordinateError, match=message):
        smart_resize(height, width, 28, 3136, 12845056)


def test_smart_resize_rejects_bad_limits() -> None:
    with pytest.raises(CoordinateError, match="min_pixels <= max_pixels"):
        smart_resize(100, 100, 28, 5000, 4000)
    assert smart_resize(28, 28 * 200, 28, 3136, 12845056).height == 28  # ratio 200 is allowed


def test_resized_known_value() -> None:
    # Qwen2.5-VL cookbook: 1080x2400 screenshot, model frame 1092x2408, click [935, 406].
    norm = resized_to_normalized(935, 406, 1092, 2408)
    assert norm == FloatPoint(935 / 1092, 406 / 2408)
    assert normalized_to_pixel(*norm, REDMI.logical_size) == IntPoint(924, 404)


@given(st.integers(28, 4000), st.integers(28, 4000), unit, unit)
def test_resized_round_trips(rw: int, rh: int, x: float, y: float) -> None:
    rx, ry = normalized_to_resized(x, y, rw, rh)
    assert 0 <= rx <= rw and 0 <= ry <= rh
    back = resized_to_normalized(rx, ry, rw, rh)
    assert abs(back.x - x) <= 1 / rw and abs(back.y - y) <= 1 / rh
    assert normalized_to_resized(*back, rw, rh) == IntPoint(rx, ry)


def test_resized_out_of_range_raises_unless_clamped() -> None:
    with pytest.raises(CoordinateError, match=r"y=2500 is outside \[0, 2408\]"):
        resized_to_normalized(10, 2500, 1092, 2408)
    assert resized_to_normalized(10, 2500, 1092, 2408, clamp=True).y == 1.0


# --- public API --------------------------------------------------------------------------


def test_all_is_complete_and_resolvable() -> None:
    public = {
        name
        for name, value in vars(coords).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == coords.__name__
    }
    assert public <= set(coords.__all__)
    assert all(hasattr(coords, name) for name in coords.__all__)
    assert len(set(coords.__all__)) == len(coords.__all__)


def test_smart_resize_never_shrinks_a_side_below_the_factor() -> None:
    # Aspect 200 with a tiny pixel budget: the short side would floor to 0 without the guard.
    assert smart_resize(28, 5600, 28, 784, 1568) == Size(width=560, height=28)
