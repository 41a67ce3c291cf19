// The kingdom on the page: an image in the page itself (no iframe); a tap reports where it landed, in the
// image's displayed pixels. Called on every rerun: the image is replaced only when it changed.
export default function ({ data, parentElement, setTriggerValue }) {
  const image = parentElement.querySelector("img");
  if (image.getAttribute("src") !== data.src) image.setAttribute("src", data.src);
  image.onclick = (event) => {
    const box = image.getBoundingClientRect();
    setTriggerValue("tap", {x: event.clientX - box.left, y: event.clientY - box.top,
                            width: box.width, height: box.height});
  };
}
