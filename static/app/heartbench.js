// heartbench: progressive enhancement only; every page works without this file.
(function () {
  "use strict";

  function formatSize(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1024 * 1024) return (bytes / 1024).toFixed(1) + " KB";
    return (bytes / (1024 * 1024)).toFixed(1) + " MB";
  }

  function listFiles(input, list) {
    if (!list) return;
    list.replaceChildren();
    for (const file of input.files) {
      const item = document.createElement("li");
      item.textContent = file.name + " (" + formatSize(file.size) + ")";
      list.appendChild(item);
    }
  }

  // A drop zone wraps a real <input type="file" multiple>: dropping files fills that
  // input, so keyboard users and drag-and-drop users submit the same form.
  function initDropZone(zone) {
    const input = zone.querySelector('input[type="file"]');
    if (!input) return;
    const list = zone.querySelector("[data-drop-zone-files]");
    const over = (on) => zone.classList.toggle("hb-drop-zone--over", on);

    ["dragenter", "dragover"].forEach((type) =>
      zone.addEventListener(type, (event) => {
        event.preventDefault();
        over(true);
      })
    );
    ["dragleave", "dragend"].forEach((type) => zone.addEventListener(type, () => over(false)));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      over(false);
      if (!event.dataTransfer || !event.dataTransfer.files.length) return;
      input.files = event.dataTransfer.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
    input.addEventListener("change", () => listFiles(input, list));
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("[data-drop-zone]").forEach(initDropZone);
  });
})();
