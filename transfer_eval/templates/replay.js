// Side-by-side replay: a slider (and the arrow keys) move both episodes to the same step.
(() => {
  const slider = document.getElementById("step");
  const label = document.getElementById("step-label");
  const panes = document.querySelectorAll("[data-step]");
  function show(i) {
    slider.value = String(i);
    label.textContent = `step ${i} (0–${slider.max})`;
    for (const pane of panes) pane.hidden = pane.dataset.step !== String(i);
  }
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (e) => {
    const i = Number(slider.value);
    if (e.key === "ArrowRight" && i < Number(slider.max)) show(i + 1);
    if (e.key === "ArrowLeft" && i > 0) show(i - 1);
  });
  show(0);
})();
