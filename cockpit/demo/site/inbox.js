// Inbox: archive, new mail, delete all and polling, all without leaving the page.
"use strict";
(() => {
  const table = document.getElementById("messages");
  const tbody = table.tBodies[0];
  const count = document.getElementById("count");
  const empty = document.getElementById("empty");
  // Answers older than the newest change we know of are stale (a poll that raced an
  // archive would otherwise bring the row back).
  let version = Number(table.dataset.version || 0);

  function rowFor(message, label) {
    const tr = document.createElement("tr");
    tr.dataset.id = String(message.id);
    const from = document.createElement("td");
    from.textContent = message.sender;
    const subject = document.createElement("td");
    subject.textContent = message.subject;
    const actions = document.createElement("td");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "archive";
    button.dataset.id = String(message.id);
    button.setAttribute("aria-label", label + ": " + message.subject);
    button.textContent = label;
    actions.appendChild(button);
    tr.append(from, subject, actions);
    return tr;
  }

  function showCount(n) {
    count.textContent = n === 1 ? "1 message" : n + " messages";
    empty.hidden = n !== 0;
  }

  // Bring the rows in line with the server's list, touching only what changed so
  // focus and element handles on untouched rows survive.
  function sync(data) {
    if (data.version < version) return;
    version = data.version;
    const label = data.archive_label || table.dataset.archiveLabel;
    const wanted = new Set(data.messages.map((m) => String(m.id)));
    for (const tr of Array.from(tbody.rows)) {
      if (!wanted.has(tr.dataset.id)) tr.remove();
    }
    let previous = null;
    for (const message of data.messages) {
      let tr = tbody.querySelector(`tr[data-id="${message.id}"]`);
      if (!tr) {
        tr = rowFor(message, label);
        tbody.insertBefore(tr, previous ? previous.nextSibling : tbody.firstChild);
      }
      previous = tr;
    }
    showCount(data.count);
  }

  async function call(method, url, body) {
    const options = { method, headers: { "Accept": "application/json" } };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(url, options);
    if (response.status === 401) {
      window.location.href = "/login";
      throw new Error("signed out");
    }
    return response.json();
  }

  tbody.addEventListener("click", async (event) => {
    const button = event.target.closest("button.archive");
    if (!button) return;
    button.disabled = true;
    sync(await call("POST", "/api/archive", { id: Number(button.dataset.id) }));
  });

  document.getElementById("check-mail").addEventListener("click", async () => {
    sync(await call("POST", "/api/check-mail", {}));
  });

  document.getElementById("delete-all").addEventListener("click", async () => {
    if (!confirm("Delete all messages?")) return;
    sync(await call("POST", "/api/delete-all", {}));
  });

  setInterval(async () => {
    try {
      sync(await call("GET", "/api/messages"));
    } catch (err) {
      // The demo server may have stopped; polling quietly gives up until it is back.
    }
  }, 3000);
})();
