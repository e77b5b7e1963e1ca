// Reference page: section filter, copy buttons and feedback, all client-side.
"use strict";
(() => {
  const sections = Array.from(document.querySelectorAll("main section"));
  const status = document.getElementById("search-status");
  let timer = null;

  document.getElementById("reference-search").addEventListener("input", (event) => {
    clearTimeout(timer);  // debounced: filtering 200 big sections on every key is slow
    timer = setTimeout(() => {
      const query = event.target.value.trim().toLowerCase();
      let shown = 0;
      for (const section of sections) {
        const match = !query || section.textContent.toLowerCase().includes(query);
        section.hidden = !match;
        if (match) shown += 1;
      }
      status.textContent = query ? `${shown} sections match` : "";
    }, 150);
  });

  document.querySelector("main").addEventListener("click", async (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.classList.contains("copy")) {
      const code = document.getElementById(button.dataset.target);
      try {
        await navigator.clipboard.writeText(code.textContent);
        button.textContent = "Copied";
      } catch (err) {
        button.textContent = "Copy failed";
      }
    } else if (button.dataset.answer) {
      button.parentElement.querySelector("span").textContent = "Thanks for the feedback!";
    }
  });
})();
