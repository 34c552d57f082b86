// Views with their own URL: #home, #charts, #episodes show one panel each (a panel without data-view, such as
// one another module adds, stays visible). A #token=… fragment is read by api.js and then replaced by the view.

const VIEWS = ["home", "charts", "episodes"];

export function currentView() {
  const name = location.hash.replace(/^#\/?/, "");
  return VIEWS.includes(name) ? name : "home";
}

export function showView(name = currentView()) {
  for (const panel of document.querySelectorAll("[data-view]")) panel.hidden = panel.dataset.view !== name;
  for (const link of document.querySelectorAll("[data-view-link]")) {
    if (link.dataset.viewLink === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.body.dataset.currentView = name; // not data-view: that marks the panels
}

export function startViews() {
  if (location.hash.includes("token=")) history.replaceState(null, "", "#home"); // no secret left in the URL bar
  window.addEventListener("hashchange", () => showView());
  showView();
}
