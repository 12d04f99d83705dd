// The gallery's measurements of the screen a page shows (sim/gallery.py evaluates this
// function after the runtime has settled): every visible text, text that does not fit its
// box, text cut off by a clipping ancestor or by the screen's edges, and CJK characters
// drawn as the missing-glyph box. Coordinates are CSS pixels relative to the screen's
// top-left corner; the result is one JSON string (cheap to hand to Playwright).
//
// `opts`: { tolerance: px a box may be exceeded by (sub-pixel rounding), cjk: whether to
// look for missing CJK glyphs, maxChars: at most this many distinct characters drawn }.
(opts) => {
  const screen = document.getElementById("screen");
  const origin = screen.getBoundingClientRect();
  const tol = opts.tolerance;
  const styles = new Map();
  const style = (el) => {
    if (!styles.has(el)) styles.set(el, getComputedStyle(el));
    return styles.get(el);
  };
  const box = (rect) => [rect.left - origin.left, rect.top - origin.top,
    rect.right - origin.left, rect.bottom - origin.top].map((v) => Math.round(v));
  const shown = (el) => {
    for (let e = el; e && e !== screen; e = e.parentElement) {
      const s = style(e);
      if (s.display === "none" || s.visibility === "hidden" || Number(s.opacity) === 0) return false;
    }
    return true;
  };
  // An ellipsis or a line clamp is a truncation the designer asked for.
  const truncates = (el) => {
    const s = style(el);
    return s.textOverflow === "ellipsis" || (s.webkitLineClamp && s.webkitLineClamp !== "none");
  };
  const scrolls = (value) => value === "auto" || value === "scroll";
  const clips = (value) => value !== "visible";
  const blockOf = (el) => {
    let e = el;
    while (e !== screen && (style(e).display === "inline" || style(e).display === "contents")) {
      e = e.parentElement;
    }
    return e;
  };
  const label = (text) => text.replace(/\s+/g, " ").trim().slice(0, 80);

  const textNodes = [];
  const walker = document.createTreeWalker(screen, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.textContent.trim() && shown(n.parentElement)) textNodes.push(n);
  }

  // How far a line's glyph box may stick out of its line box: with a line-height below the
  // font's own (line-height: 1 on a big clock), ascent and descent pass the box by a
  // fraction of an em, which no one sees as overflow; a wrapped extra line is a whole line.
  const range = document.createRange();
  const overhang = (node) => {
    const lineHeight = parseFloat(style(node.parentElement).lineHeight);
    range.selectNodeContents(node);
    const first = range.getClientRects()[0];
    return first && lineHeight ? Math.max(0, first.height - lineHeight) : 0;
  };

  // ---- a box whose text content is larger than the box itself
  const overflow = [];
  const measured = new Set();
  for (const node of textNodes) {
    const el = blockOf(node.parentElement);
    if (el === screen || measured.has(el) || truncates(el)) continue;
    measured.add(el);
    const s = style(el);
    if (el.clientWidth === 0 && el.clientHeight === 0) continue;
    const wide = !scrolls(s.overflowX) && el.scrollWidth > el.clientWidth + tol;
    const tall = !scrolls(s.overflowY) && el.scrollHeight > el.clientHeight + tol + overhang(node);
    if (wide || tall) {
      const size = wide ? `${el.scrollWidth}px of text in a ${el.clientWidth}px wide box`
        : `${el.scrollHeight}px of text in a ${el.clientHeight}px high box`;
      const where = box(el.getBoundingClientRect());
      overflow.push({ kind: "overflow", text: label(el.textContent), box: where, detail: size });
    }
  }

  // ---- text cut off: by the screen's edges, or by an ancestor that clips without scrolling.
  // A scroll container's edge cuts nothing (the rest scrolls into view): above it, only the
  // part of the line inside it counts, and a line scrolled out of it entirely is fine.
  const cut = (line, el, slack) => {
    if (line.left < origin.left - tol || line.right > origin.right + tol) return "the screen's edge";
    let [left, top, right, bottom] = [line.left, line.top, line.right, line.bottom];
    for (let a = el; a && a !== screen; a = a.parentElement) {
      const s = style(a);
      if (truncates(a)) return null;
      const r = a.getBoundingClientRect();
      if (scrolls(s.overflowX)) [left, right] = [Math.max(left, r.left), Math.min(right, r.right)];
      if (scrolls(s.overflowY)) [top, bottom] = [Math.max(top, r.top), Math.min(bottom, r.bottom)];
      if (left >= right || top >= bottom) return null;
      const x = clips(s.overflowX) && !scrolls(s.overflowX) && (left < r.left - tol || right > r.right + tol);
      const y = clips(s.overflowY) && !scrolls(s.overflowY)
        && (top < r.top - slack || bottom > r.bottom + slack);
      if (x || y) return `a ${a.tagName.toLowerCase()}.${[...a.classList].join(".") || "(no class)"} that clips it`;
    }
    return null;
  };
  const clipped = new Set();
  for (const node of textNodes) {
    const el = node.parentElement;
    if (clipped.has(el)) continue;
    const slack = tol + overhang(node) / 2;
    range.selectNodeContents(node);
    for (const line of range.getClientRects()) {
      if (line.width === 0) continue;
      const by = cut(line, el, slack);
      if (by) {
        clipped.add(el);
        overflow.push({ kind: "clipped", text: label(node.textContent), box: box(line), detail: `cut off by ${by}` });
        break;
      }
    }
  }

  // ---- CJK characters drawn as the missing-glyph box, in the font of their element
  const tofu = [];
  if (opts.cjk) {
    // radicals, CJK punctuation (not the ideographic space), kana, bopomofo, ideographs
    // (extension A, the unified block, compatibility, extensions B to H), fullwidth forms
    const CJK = new RegExp("[\u2e80-\u2fdf\u3001-\u303f\u3040-\u30ff\u3100-\u312f"
      + "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60\u{20000}-\u{323af}]", "u");
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 48;
    const g = canvas.getContext("2d", { willReadFrequently: true });
    const draw = (font, ch) => {
      g.clearRect(0, 0, 48, 48);
      g.font = font;
      g.fillText(ch, 4, 38);
      return g.getImageData(0, 0, 48, 48).data;
    };
    const same = (a, b) => a.every((v, i) => v === b[i]);
    const missing = new Map();
    const verdicts = new Map();
    let drawn = 0;
    for (const node of textNodes) {
      const chars = [...new Set([...node.textContent].filter((ch) => CJK.test(ch)))];
      if (!chars.length) continue;
      const s = style(node.parentElement);
      const font = `${s.fontStyle} ${s.fontWeight} 32px ${s.fontFamily}`;
      if (!missing.has(font)) missing.set(font, draw(font, String.fromCodePoint(0x10fffd)));
      const bad = [];
      for (const ch of chars) {
        const key = `${font}\n${ch}`;
        if (!verdicts.has(key)) {
          if (drawn >= opts.maxChars) break;
          drawn += 1;
          verdicts.set(key, same(draw(font, ch), missing.get(font)));
        }
        if (verdicts.get(key)) bad.push(ch);
      }
      if (bad.length) {
        range.selectNodeContents(node);
        tofu.push({ kind: "tofu", text: label(node.textContent), box: box(range.getBoundingClientRect()),
          detail: `no glyph for ${bad.join("")} in ${s.fontFamily}` });
      }
    }
  }
  const seen = new Set();
  const texts = [];
  for (const node of textNodes) {
    const text = label(node.textContent);
    if (seen.has(text)) continue;
    seen.add(text);
    range.selectNodeContents(node);
    texts.push({ text, box: box(range.getBoundingClientRect()) });
  }
  return JSON.stringify({ texts, overflow, tofu });
}
