// Taps on the kingdom. The image is plain HTML in the page (drawn in the same render as the score); this
// element only reports where a tap landed on it, in the image's displayed pixels. One listener per page,
// reporting through the element drawn last (a new player or game draws a new one).
let report = null;
export default function ({ setTriggerValue }) {
  const first = report === null;
  report = setTriggerValue;
  if (!first) return;
  document.addEventListener("click", (event) => {
    const image = event.target.closest && event.target.closest(".st-key-kingdom_view img");
    if (!image) return;
    const box = image.getBoundingClientRect();
    report("tap", {x: event.clientX - box.left, y: event.clientY - box.top,
                   width: box.width, height: box.height});
  });
}
