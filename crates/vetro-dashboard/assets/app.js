// vetro dashboard: live deployment logs (server-sent events), form checks
// shown at the field, and confirmations. Everything from the server is
// inserted as text, never as HTML.
"use strict";

function liveLog(box) {
  const list = box.querySelector("ol.log");
  const status = document.querySelector("[data-live-status]");
  const source = new EventSource(box.dataset.events);
  source.addEventListener("report", (e) => {
    const r = JSON.parse(e.data);
    const li = document.createElement("li");
    li.className = "level-" + String(r.level || "info").replace(/[^a-z]/g, "");
    const time = document.createElement("time");
    time.textContent = String(r.created || "").replace("T", " ").slice(0, 19);
    const text = document.createElement("span");
    text.textContent = r.text;
    li.append(time, " ", text);
    list.append(li);
    const empty = box.querySelector(".empty");
    if (empty) empty.remove();
  });
  source.addEventListener("end", (e) => {
    const end = JSON.parse(e.data);
    source.close();
    const heading = box.querySelector("h2 .badge");
    if (heading) {
      heading.textContent = end.status === "ready" || end.status === "deleted" ? "finished" : end.status;
    }
    if (status) {
      status.textContent = end.status;
      status.className = "badge " + (end.status === "ready" || end.status === "success" ? "good" : "bad");
    }
    const done = box.querySelector("[data-live-done]");
    if (done) {
      done.textContent = "Finished: " + end.status + ". ";
      const a = document.createElement("a");
      const gone = end.status === "deleted";
      a.href = gone ? "/environments" : box.dataset.environment;
      a.textContent = gone ? "Back to the environments" : "Show the updated environment";
      done.append(a);
      done.hidden = false;
    }
  });
}

function showFieldError(input) {
  const box = document.getElementById(input.id + "-error");
  if (!box) return;
  let message = input.validationMessage;
  box.textContent = message;
  box.hidden = !message;
  input.setAttribute("aria-invalid", message ? "true" : "false");
}

function checkConfirmation(input) {
  const other = document.getElementById(input.dataset.confirms);
  if (!other) return;
  input.setCustomValidity(input.value === other.value ? "" : "The two passwords differ.");
}

function checkedForm(form) {
  form.noValidate = true;
  form.addEventListener("submit", (e) => {
    let first = null;
    for (const input of form.querySelectorAll("input, select, textarea")) {
      if (input.dataset.confirms) checkConfirmation(input);
      if (!input.willValidate) continue;
      showFieldError(input);
      if (!input.checkValidity() && !first) first = input;
    }
    if (first) {
      e.preventDefault();
      first.focus();
    }
  });
  // A message, once shown, follows the value as it is typed (not on blur,
  // which would move the buttons under the pointer as it clicks).
  for (const input of form.querySelectorAll("input, select, textarea")) {
    input.addEventListener("input", () => {
      if (input.dataset.confirms) checkConfirmation(input);
      if (input.getAttribute("aria-invalid") === "true") showFieldError(input);
    });
  }
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-events]").forEach(liveLog);
  document.querySelectorAll("form[data-checked]").forEach(checkedForm);
  document.querySelectorAll("[data-confirm]").forEach((el) => {
    el.addEventListener("click", (e) => {
      if (!window.confirm(el.dataset.confirm)) e.preventDefault();
    });
  });
});
