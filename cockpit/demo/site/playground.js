// Playground behaviours: each handler does one visible thing a test can check.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const on = (id, type, handler) => $(id).addEventListener(type, handler);

  console.info("playground ready");

  on("attachment", "change", (event) => {
    const files = Array.from(event.target.files);
    $("upload-result").textContent = files.length
      ? "Selected: " + files.map((f) => `${f.name} (${f.size} bytes)`).join(", ")
      : "";
  });

  on("log-console", "click", () => {
    console.log("demo log", 1);
    console.warn("demo warning");
    console.error("demo error");
  });

  on("throw-error", "click", () => {
    throw new Error("demo failure");  // uncaught on purpose
  });

  const controls = $("controls");
  const showControls = () => {
    const data = new FormData(controls);
    $("form-state").textContent =
      `Subscribe: ${$("subscribe").checked ? "yes" : "no"}, Color: ${data.get("color")}, ` +
      `Size: ${data.get("size")}, Notes: ${data.get("notes")}`;
  };
  controls.addEventListener("input", showControls);
  controls.addEventListener("change", showControls);

  on("show-alert", "click", () => alert("Hello from the demo"));
  on("ask-name", "click", () => {
    const answer = prompt("Your name?");
    $("prompt-result").textContent = answer === null ? "(cancelled)" : answer;
  });

  on("delayed", "click", async () => {
    await fetch("/api/slow?ms=400");
    const p = document.createElement("p");
    p.textContent = "Loaded later";
    $("delayed-target").appendChild(p);
  });

  on("hover-target", "mouseenter", () => { $("hover-tip").hidden = false; });

  on("drag-source", "dragstart", (event) => {
    event.dataTransfer.setData("text/plain", "drag-source");
  });
  on("drop-zone", "dragover", (event) => event.preventDefault());  // allows the drop
  on("drop-zone", "drop", (event) => {
    event.preventDefault();
    $("drop-result").textContent = "Dropped!";
  });

  on("dblclick", "dblclick", () => { $("dblclick-result").textContent = "Double-clicked"; });
  on("covered", "click", () => { $("covered-result").textContent = "Covered button clicked"; });
  on("accept-cookies", "click", () => $("consent").remove());
})();
