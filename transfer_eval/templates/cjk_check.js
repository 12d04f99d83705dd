// Whether a CJK character renders as a real glyph rather than the missing-glyph box:
// draw it and a code point no font covers; identical pixels mean it fell back to tofu.
() => {
  const draw = (ch) => {
    const canvas = document.createElement("canvas");
    canvas.width = 64;
    canvas.height = 64;
    const g = canvas.getContext("2d");
    g.font = "48px sans-serif";
    g.fillText(ch, 4, 52);
    return Array.from(g.getImageData(0, 0, 64, 64).data).join(",");
  };
  const blank = draw("");
  const cjk = draw("\u4e2d");
  const missing = draw(String.fromCodePoint(0x10fffd));
  return cjk !== missing && cjk !== blank;
}
