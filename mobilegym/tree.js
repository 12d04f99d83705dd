// A UI tree in uiautomator's shape, derived from a MobileGym page (which has no tree of its
// own). One call walks the DOM once and returns one JSON string:
//   {dpr, viewport: [w, h], nodes: [{id, parent, index, class_name, ..., rect: [l, t, r, b]}]}
// where `rect` is the visible part of the element in CSS pixels (clipped to the viewport and
// to every ancestor that clips it); mobilegym/tree.py turns it into device pixels. The rules
// (what is clickable, visible, covered, kept) are described in mobilegym/tree.py's docstring.
((pkg) => {
  const MIN_SIDE = 0.5;  // CSS px: at DPR 3, at least one device pixel after rounding
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const screen = { l: 0, t: 0, r: vw, b: vh };
  const styles = new Map();
  const style = (el) => {
    let cs = styles.get(el);
    if (cs === undefined) { cs = getComputedStyle(el); styles.set(el, cs); }
    return cs;
  };
  const clipTo = (a, b) => ({
    l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b),
  });
  const nonEmpty = (a) => a.r - a.l >= MIN_SIDE && a.b - a.t >= MIN_SIDE;

  // ---- React 19 keeps an element's props (its handlers) on `__reactProps$<random>`.
  let propsKey = null;
  const reactProps = (el) => {
    if (propsKey === null) {
      for (const k in el) if (k.startsWith('__reactProps$')) { propsKey = k; break; }
      if (propsKey === null) return null;
    }
    return el[propsKey] || null;
  };

  // ---- handlers and roles -> clickable, long-clickable
  const TAP_ROLES = new Set(['button', 'link', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'switch', 'checkbox', 'radio', 'treeitem']);
  const gestureSurface = (p, cs) => !!(p.onPointerMove || p.onTouchMove || p.onMouseMove
    || p.onWheel || p.onScroll || p.onDrag || p.onDragStart)
    || (cs.touchAction !== 'auto' && cs.touchAction !== 'manipulation');
  function handlers(el, cs) {
    const p = reactProps(el);
    let click = false;
    let long = false;
    if (p) {
      if (p.onClick || p.onDoubleClick || p.onTap || p.onPress) click = true;
      else if ((p.onPointerUp || p.onTouchEnd || p.onMouseUp) && !gestureSurface(p, cs)) click = true;
      if (p.onContextMenu || p.onLongPress) long = true;
      else if (p.onPointerDown && p.onPointerLeave && !p.onPointerMove) long = true;
      if (el.tagName === 'INPUT' && p.onChange) click = true;
    }
    const trigger = el.getAttribute('data-trigger-type') || el.getAttribute('data-action-type');
    if (trigger === 'longPress') long = true;
    else if (trigger) click = true;
    return { click, long };
  }

  // ---- MobileGym's own switches: a pill-shaped track whose only child is a round thumb;
  // on when the thumb sits in the right half (its class moves it: justify-end / translate-x).
  const px = (v) => parseFloat(v) || 0;
  function switchThumb(el, rect) {
    if (el.childElementCount !== 1 || el.textContent.trim() !== '') return null;
    const w = rect.right - rect.left;
    const h = rect.bottom - rect.top;
    if (h < 12 || h > 44 || w / h < 1.4 || w / h > 2.8) return null;
    if (px(style(el).borderTopLeftRadius) < h / 2 - 1) return null;
    const thumb = el.firstElementChild;
    const tr = thumb.getBoundingClientRect();
    const th = tr.bottom - tr.top;
    if (th < h * 0.4 || th > h + 1 || Math.abs((tr.right - tr.left) - th) > 2) return null;
    if (px(style(thumb).borderTopLeftRadius) < th / 2 - 1) return null;
    return (tr.left + tr.right) / 2 > (rect.left + rect.right) / 2;
  }

  // ---- text and descriptions
  const squash = (s) => (s || '').replace(/[ \t\u00a0]+/g, ' ').replace(/ *\n+ */g, '\n').trim();
  function hasOwnText(el) {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3 && n.data.trim() !== '') return true;
    }
    return false;
  }
  function svgTitle(el) {
    const t = el.querySelector('title');
    return t ? t.textContent : '';
  }
  function describe(el, tag) {
    const d = el.getAttribute('aria-label') || el.getAttribute('title')
      || (tag === 'IMG' ? el.getAttribute('alt') : '') || (tag === 'svg' ? svgTitle(el) : '');
    return squash(d);
  }
  const IMAGE_TAGS = new Set(['IMG', 'svg', 'CANVAS', 'VIDEO']);
  const BUTTON_INPUTS = new Set(['button', 'submit', 'reset']);

  // Facts about one element by itself: what uiautomator would say of the view.
  function facts(el, cs, rect, enabled, ctx) {
    const tag = el.tagName;
    const role = el.getAttribute('role') || '';
    const type = tag === 'INPUT' ? (el.type || 'text') : '';
    const f = {
      tag, role, text: '', desc: describe(el, tag), hint: '', cls: '', textLeaf: false,
      leaf: IMAGE_TAGS.has(tag), clickable: false, long: false, checkable: false,
      checked: false, editable: false, scrollable: false, scrollX: false, selected: false,
      password: false, enabled, buttonLike: false,
    };
    const h = handlers(el, cs);
    f.clickable = h.click;
    f.long = h.long;
    if (tag === 'BUTTON' || (tag === 'A' && el.hasAttribute('href')) || role === 'button'
        || role === 'link' || BUTTON_INPUTS.has(type)) {
      // A button is clickable when something answers it: its own handler, an ancestor's
      // (React delegates), a link, or a form it submits. MobileGym has dead ones (an
      // `onClick: undefined` "more" button in Clock), which a phone's tap would not move.
      f.buttonLike = true;
      if (ctx.handled || (tag === 'A' && el.hasAttribute('href')) || (el.form && el.type === 'submit')) {
        f.clickable = true;
      }
    }
    if (TAP_ROLES.has(role) || tag === 'SELECT' || (tag === 'LABEL' && el.control)) f.clickable = true;
    if (role === 'switch' || role === 'checkbox' || role === 'radio' || role === 'menuitemcheckbox') {
      f.checkable = true;
      f.checked = el.getAttribute('aria-checked') === 'true';
    } else if (el.hasAttribute('aria-pressed')) {
      f.checkable = true;
      f.checked = el.getAttribute('aria-pressed') === 'true';
    }
    if (tag === 'LABEL' && el.control && /^(checkbox|radio)$/.test(el.control.type)) {
      f.checkable = true;
      f.checked = el.control.checked;
    }
    if (type === 'checkbox' || type === 'radio') {
      f.clickable = f.checkable = true;
      f.checked = el.checked;
      f.cls = type === 'checkbox' ? 'android.widget.CheckBox' : 'android.widget.RadioButton';
    } else if (type === 'range') {
      f.clickable = true;
      f.cls = 'android.widget.SeekBar';
    } else if (BUTTON_INPUTS.has(type)) {
      f.text = squash(el.value);
    } else if (tag === 'TEXTAREA' || (tag === 'INPUT' && type !== 'hidden' && type !== 'file')
               || (el.isContentEditable && el.getAttribute('contenteditable') !== null)) {
      f.editable = f.clickable = true;
      f.password = type === 'password';
      const value = tag === 'INPUT' || tag === 'TEXTAREA' ? el.value : el.innerText;
      f.text = f.password ? '\u2022'.repeat(value.length) : squash(value);
      f.hint = squash(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder'));
      f.leaf = true;
      f.cls = 'android.widget.EditText';
    } else if (tag === 'SELECT') {
      const opt = el.selectedOptions && el.selectedOptions[0];
      f.text = squash(opt ? opt.text : '');
      f.leaf = true;
      f.cls = 'android.widget.Spinner';
    } else if (!f.leaf && hasOwnText(el)) {
      f.textLeaf = true;
      // a bare text element needs no layout-aware innerText (which costs far more)
      f.text = squash(el.childElementCount ? el.innerText : el.textContent);
    }
    if (!f.checkable && !f.leaf && !f.textLeaf) {
      const on = switchThumb(el, rect);
      if (on !== null) {
        f.checkable = true;
        f.checked = on;
        f.cls = 'android.widget.Switch';
      }
    }
    if (role === 'switch') f.cls = 'android.widget.Switch';
    if (role === 'checkbox') f.cls = 'android.widget.CheckBox';
    if (role === 'radio') f.cls = 'android.widget.RadioButton';
    if (role === 'img') f.leaf = true;
    const ox = cs.overflowX === 'auto' || cs.overflowX === 'scroll';
    const oy = cs.overflowY === 'auto' || cs.overflowY === 'scroll';
    const canX = ox && el.scrollWidth > el.clientWidth + 1;
    const canY = oy && el.scrollHeight > el.clientHeight + 1;
    f.scrollable = canX || canY;
    f.scrollX = canX && !canY;
    f.selected = el.getAttribute('aria-selected') === 'true';
    if (cs.pointerEvents === 'none') f.clickable = f.long = false;
    return f;
  }

  function className(f, kids) {
    if (f.cls) return f.cls;
    if (f.leaf) return 'android.widget.ImageView';
    if (f.buttonLike) {
      return !f.text && kids.length === 0 ? 'android.widget.ImageButton' : 'android.widget.Button';
    }
    if (f.scrollable) return f.scrollX ? 'android.widget.HorizontalScrollView' : 'android.widget.ScrollView';
    if (f.textLeaf) return 'android.widget.TextView';
    return kids.length ? 'android.view.ViewGroup' : 'android.view.View';
  }

  // ---- covered: at every sample point another branch paints over the element (it is not
  // seen), or takes the tap (a transparent gesture strip: seen, but a tap never reaches it).
  function paints(e) {
    const cs = style(e);
    if (IMAGE_TAGS.has(e.tagName) || e.tagName === 'INPUT' || e.tagName === 'TEXTAREA') return true;
    if (cs.backgroundImage !== 'none' || (cs.backdropFilter && cs.backdropFilter !== 'none')) return true;
    const m = /rgba?\(([^)]+)\)/.exec(cs.backgroundColor);
    if (!m) return false;
    const parts = m[1].split(/[ ,/]+/).filter(Boolean);
    return parts.length < 4 || parseFloat(parts[3]) > 0.05;
  }
  // `e`, above `el`, paints and sits in no fully transparent subtree of another branch.
  function foreignPaint(el, e) {
    if (!paints(e)) return false;
    for (let a = e; a && !a.contains(el); a = a.parentElement) {
      if (style(a).opacity === '0') return false;
    }
    return true;
  }
  // At (x, y): is `el` painted over, and does a tap there miss it (the topmost element,
  // which the tap goes to and bubbles up from, is outside `el`)?
  function pointState(el, x, y) {
    const stack = document.elementsFromPoint(x, y);
    const missed = stack.length > 0 && !el.contains(stack[0]);
    for (const e of stack) {
      if (e === el || el.contains(e) || e.contains(el)) return { painted: false, missed };
      if (foreignPaint(el, e)) return { painted: true, missed: true };
    }
    return { painted: false, missed };
  }
  function covered(el, cs, v) {
    const state = { painted: false, missed: false };
    if (cs.pointerEvents === 'none') return state;  // hit testing sees through it
    const dx = Math.min(4, (v.r - v.l) / 4);
    const dy = Math.min(4, (v.b - v.t) / 4);
    const points = [[(v.l + v.r) / 2, (v.t + v.b) / 2], [v.l + dx, v.t + dy], [v.r - dx, v.t + dy],
      [v.l + dx, v.b - dy], [v.r - dx, v.b - dy]];
    state.painted = state.missed = true;
    for (const [x, y] of points) {
      const at = pointState(el, x, y);
      state.painted = state.painted && at.painted;
      state.missed = state.missed && at.missed;
      if (!state.painted && !state.missed) break;
    }
    return state;
  }

  // ---- pass 1, the walk. Clip boxes: `clip` for in-flow children, `abs` at the nearest
  // positioned ancestor (an absolute child escapes overflow between it and that ancestor),
  // `fixed` at the viewport or the nearest ancestor that makes a containing block for fixed
  // ones. Returns candidates: elements that are nodes by themselves (`self`) or hold two or
  // more candidates; any other element hands its candidates up to its parent.
  const IDENTITY = new Set(['none', 'matrix(1, 0, 0, 1, 0, 0)']);
  const fixedBlock = (cs) => cs.transform !== 'none' || cs.filter !== 'none'
    || cs.perspective !== 'none' || /paint|layout|strict|content/.test(cs.contain)
    || (cs.backdropFilter && cs.backdropFilter !== 'none');
  const HIDDEN_CLIP = new Set(['rect(0px, 0px, 0px, 0px)', 'rect(0px 0px 0px 0px)']);
  const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'META', 'LINK']);
  const FORM_TAGS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'FIELDSET', 'OPTION']);
  // What may cover elements of other branches: elements in (or being) a layer, i.e. out of
  // flow, moved or z-ordered, that paint or take pointer events (a handler of their own).
  // Only a node that one of them overlaps is hit-tested.
  const occluders = [];
  const TOUCH_PROPS = ['onClick', 'onPointerDown', 'onPointerUp', 'onTouchStart', 'onTouchEnd',
    'onMouseDown', 'onMouseUp'];
  const takesTouch = (el) => { const p = reactProps(el); return !!p && TOUCH_PROPS.some((k) => p[k]); };
  const isLayer = (cs) => cs.position === 'absolute' || cs.position === 'fixed'
    || cs.position === 'sticky' || !IDENTITY.has(cs.transform)
    || (cs.position === 'relative' && cs.zIndex !== 'auto');

  function visit(el, ctx) {
    const cs = style(el);
    if (cs.display === 'none' || cs.opacity === '0' || HIDDEN_CLIP.has(cs.clip)) return [];
    if (SKIP_TAGS.has(el.tagName)) return [];
    const pos = cs.position;
    const clip = pos === 'fixed' ? ctx.fixed : pos === 'absolute' ? ctx.abs : ctx.clip;
    const rect = el.getBoundingClientRect();
    const vis = clipTo({ l: rect.left, t: rect.top, r: rect.right, b: rect.bottom }, clip);
    const clips = cs.overflowX !== 'visible' || cs.overflowY !== 'visible';
    if (clips && !nonEmpty(vis)) return [];
    const shown = nonEmpty(vis) && cs.visibility === 'visible' && cs.display !== 'contents';
    const layer = ctx.layer || isLayer(cs);
    if (shown && layer) {
      const painted = paints(el);
      if (painted || (cs.pointerEvents !== 'none' && takesTouch(el))) occluders.push({ el, vis, painted });
    }
    const enabled = ctx.enabled && !(FORM_TAGS.has(el.tagName) && el.matches(':disabled'))
      && el.getAttribute('aria-disabled') !== 'true';
    const f = facts(el, cs, rect, enabled, ctx);
    const kids = [];
    if (!f.leaf) {
      const inner = clips ? vis : clip;
      const kctx = {
        clip: inner,
        abs: pos !== 'static' || fixedBlock(cs) ? inner : ctx.abs,
        fixed: fixedBlock(cs) ? inner : ctx.fixed,
        enabled,
        inText: ctx.inText || f.textLeaf,
        handled: ctx.handled || f.clickable,
        layer,
      };
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        for (const k of visit(c, kctx)) kids.push(k);
      }
    }
    if (!shown) return kids;
    if (ctx.inText) { f.text = ''; f.desc = ''; }
    const self = !!(f.text || f.desc || f.clickable || f.long || f.scrollable || f.editable || f.checkable);
    if (!self && kids.length < 2) return kids;
    return [{ el, cs, f, vis, self, kids }];
  }

  // ---- pass 2: drop what is covered, then keep a node that is one by itself or holds two
  // or more; a container that is the only child of a node gives that node its children.
  const overlaps = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
  const mayBeCovered = (n, taps) => occluders.some((o) => (o.painted || taps) && o.el !== n.el
    && overlaps(o.vis, n.vis) && !o.el.contains(n.el) && !n.el.contains(o.el));
  const NEUTRAL = { text: '', desc: '', hint: '', cls: '', textLeaf: false, leaf: false,
    clickable: false, long: false, checkable: false, checked: false, editable: false,
    scrollable: false, selected: false, password: false, buttonLike: false };
  function settle(n) {
    const kids = [];
    for (const k of n.kids) for (const s of settle(k)) kids.push(s);
    const taps = n.f.clickable || n.f.long;
    if (n.self && mayBeCovered(n, taps)) {
      const state = covered(n.el, n.cs, n.vis);
      if (state.painted) {  // unseen, though it may hold nodes that are seen
        n.self = false;
        n.f = { ...n.f, ...NEUTRAL };
      } else if (state.missed && taps) {  // seen, but no tap reaches it
        n.f.clickable = n.f.long = false;
        n.self = !!(n.f.text || n.f.desc || n.f.scrollable || n.f.editable || n.f.checkable);
      }
    }
    if (!n.self && kids.length < 2) return kids;
    n.kids = kids.length === 1 && !kids[0].self ? kids[0].kids : kids;
    return [n];
  }

  // A button whose children are plain text (or one described icon) is one Button with that
  // text (an ImageButton with that description), as Android draws it; a clickable row keeps
  // its TextView children (a LinearLayout on a phone).
  const plain = (k) => !k.kids.length && !k.f.clickable && !k.f.long && !k.f.checkable
    && !k.f.editable && !k.f.scrollable;
  function mergeButton(n) {
    const f = n.f;
    if (!f.buttonLike || f.text || !n.kids.length || !n.kids.every(plain)) return;
    if (n.kids.every((k) => k.f.textLeaf)) {
      f.text = n.kids.map((k) => k.f.text).join(' ');
      f.textLeaf = true;
      n.kids = [];
    } else if (n.kids.length === 1 && n.kids[0].f.leaf && !f.desc) {
      f.desc = n.kids[0].f.desc;
      n.kids = [];
    }
  }

  // ---- a control that nothing names (no text, description or hint in it) is named by its
  // icon: a name inside it (aria-label, title, alt, an SVG's <title>), else the icon's own
  // name, from an icon library's class (`lucide-arrow-left`: "arrow left") or from the file
  // its picture is (an <img>'s src, a CSS mask or background image: `icon_back.svg`).
  const labelled = (kids) => kids.some((k) => k.f.text || k.f.desc || k.f.hint || labelled(k.kids));
  const ICON_SCAN = 40;  // elements looked at inside one control, in document order
  const ICON_FILE = /\.(svg|png|webp|jpe?g|gif|avif)$/i;
  function fileStem(url) {
    const file = (url || '').split(/[?#]/)[0].split('/').pop() || '';
    if (!ICON_FILE.test(file)) return '';
    try { return decodeURIComponent(file.replace(/\.[^.]+$/, '')); } catch (e) { return ''; }
  }
  const cssUrl = (v) => { const m = /url\(["']?([^"')]+)["']?\)/.exec(v || ''); return m ? m[1] : ''; };
  function iconOf(e, top) {
    if (e !== top) {
      const named = describe(e, e.tagName);
      if (named) return named;
    }
    if (e.tagName === 'svg') {
      for (const c of e.classList) {
        const m = /^lucide-(.+?)(-icon)?$/.exec(c);
        if (m) return m[1].replace(/-/g, ' ');
      }
    }
    if (e.tagName === 'IMG') return fileStem(e.currentSrc || e.getAttribute('src'));
    if (e.childElementCount) return '';
    const cs = style(e);
    return fileStem(cssUrl(cs.maskImage || cs.webkitMaskImage))
      || fileStem(cssUrl(cs.backgroundImage));
  }
  function iconName(el) {
    const seen = [el, ...Array.prototype.slice.call(el.querySelectorAll('*'), 0, ICON_SCAN)];
    for (const e of seen) {
      if (e !== el && (SKIP_TAGS.has(e.tagName) || e.getClientRects().length === 0)) continue;
      const name = squash(iconOf(e, el));
      if (name) return name;
    }
    return '';
  }

  const nodes = [];
  const active = document.activeElement;
  function emit(n, parent, index) {
    mergeButton(n);
    const f = n.f;
    if ((f.clickable || f.long) && !f.text && !f.desc && !f.hint && !labelled(n.kids)) {
      f.desc = iconName(n.el);
    }
    const id = nodes.length;
    const rid = n.el.id || n.el.getAttribute('data-trigger') || '';
    nodes.push({
      id, parent, index, class_name: className(f, n.kids), text: f.text, content_desc: f.desc,
      resource_id: rid ? (rid.includes(':') ? rid : `${pkg}:id/${rid}`) : '', hint: f.hint,
      package: pkg, checkable: f.checkable, checked: f.checked, clickable: f.clickable,
      long_clickable: f.long, editable: f.editable, focusable: f.clickable || f.editable,
      focused: n.el === active && n.el !== document.body, scrollable: f.scrollable,
      enabled: f.enabled, selected: f.selected, password: f.password,
      rect: [n.vis.l, n.vis.t, n.vis.r, n.vis.b].map((v) => Math.round(v * 100) / 100),
    });
    n.kids.forEach((k, i) => emit(k, id, i));
  }

  const found = [];
  const start = {
    clip: screen, abs: screen, fixed: screen, enabled: true, inText: false, handled: false,
    layer: false,
  };
  for (let c = document.body.firstElementChild; c; c = c.nextElementSibling) {
    for (const k of visit(c, start)) found.push(k);
  }
  const top = [];
  for (const k of found) for (const s of settle(k)) top.push(s);
  nodes.push({
    id: 0, parent: null, index: 0, class_name: 'android.widget.FrameLayout', text: '',
    content_desc: '', resource_id: '', hint: '', package: pkg, checkable: false, checked: false,
    clickable: false, long_clickable: false, editable: false, focusable: false, focused: false,
    scrollable: false, enabled: true, selected: false, password: false, rect: [0, 0, vw, vh],
  });
  top.forEach((k, i) => emit(k, 0, i));
  return JSON.stringify({ dpr: window.devicePixelRatio || 1, viewport: [vw, vh], nodes });
})
