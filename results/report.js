// report.js: report.html's behaviour, inline in the page (no file or network to fetch):
// tables sort on a click of a column's header, a figure's point shows its values under
// the pointer, a figure zooms (wheel, drag to pan, double-click to reset, Escape to close).
(function () {
  "use strict";

  // Sorting. A cell is a number when it starts with one ("12.5 ±0.3", "3/4", "1e+06"),
  // "" and "-" are no value (last in either order), anything else is text.
  function cellValue(td) {
    var t = td.textContent.trim();
    if (t === "" || t === "-") { return null; }
    var m = t.match(/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/);
    return m ? parseFloat(m[0]) : t;
  }
  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    return String(a).localeCompare(String(b), undefined, {numeric: true});
  }
  function sortBy(table, th) {
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) {
      return {r: r, i: i, v: r.cells[col] ? cellValue(r.cells[col]) : null};
    });
    rows.sort(function (x, y) {
      if (x.v === null || y.v === null) {
        return (x.v === null) - (y.v === null) || x.i - y.i;
      }
      return dir * compare(x.v, y.v) || x.i - y.i;
    });
    rows.forEach(function (x) { body.appendChild(x.r); });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function (table) {
    if (!table.tHead || !table.tBodies.length || table.tBodies[0].rows.length < 2) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.classList.add("sortable");
      th.tabIndex = 0;
      th.title = "sort by " + th.textContent;
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
      });
    });
  });

  // Hover: each figure's data-points (results.Figure.HoverJSON) gives its lines' points,
  // where they are in the SVG's viewBox and their values.
  var tip = document.createElement("div");
  tip.id = "hover-tip";
  tip.setAttribute("role", "status");
  tip.hidden = true;
  document.body.appendChild(tip);
  function number(v) { return String(+v.toPrecision(6)); }
  function line(label, value) {
    var d = document.createElement("div");
    d.textContent = label + ": " + value;
    return d;
  }
  function show(fig, svg, data, hit, e) {
    tip.textContent = "";
    if (hit.s.l) {
      var b = document.createElement("strong");
      b.textContent = hit.s.l;
      tip.appendChild(b);
    }
    tip.appendChild(line(data.x || "x", number(hit.p[2])));
    tip.appendChild(line(data.y || "y", number(hit.p[3])));
    tip.hidden = false;
    var x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4);
    var y = e.clientY + 14 + tip.offsetHeight > window.innerHeight ? e.clientY - 14 - tip.offsetHeight : e.clientY + 14;
    tip.style.left = Math.max(0, x) + "px";
    tip.style.top = Math.max(0, y) + "px";
    var dot = svg.querySelector("circle.hover-dot");
    if (!dot) {
      dot = document.createElementNS("http://www.w3.org/2000/svg", "circle");
      dot.setAttribute("class", "hover-dot");
      dot.setAttribute("r", "4");
      svg.appendChild(dot);
    }
    dot.setAttribute("cx", hit.p[0]);
    dot.setAttribute("cy", hit.p[1]);
    dot.style.display = "";
    fig.setAttribute("data-hover", JSON.stringify({l: hit.s.l, p: hit.p}));
  }
  function hide(svg) {
    tip.hidden = true;
    var dot = svg.querySelector("circle.hover-dot");
    if (dot) { dot.style.display = "none"; }
  }
  Array.prototype.forEach.call(document.querySelectorAll("figure.plot[data-points]"), function (fig) {
    var svg = fig.querySelector("svg");
    var data = null;
    if (!svg) { return; }
    svg.addEventListener("mousemove", function (e) {
      if (data === null) { data = JSON.parse(fig.getAttribute("data-points")); }
      var m = svg.getScreenCTM();
      if (!m) { return; }
      var q = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
      var best = null, bestD = Infinity;
      data.s.forEach(function (s) {
        s.p.forEach(function (p) {
          var d = (p[0] - q.x) * (p[0] - q.x) + (p[1] - q.y) * (p[1] - q.y);
          if (d < bestD) { bestD = d; best = {s: s, p: p}; }
        });
      });
      // Within 16 px on the screen: the SVG's scale maps viewBox units to pixels.
      if (best && Math.sqrt(bestD) * Math.abs(m.a) <= 16) { show(fig, svg, data, best, e); } else { hide(svg); }
    });
    svg.addEventListener("mouseleave", function () { hide(svg); });
  });

  // Zoom: the button shows the figure alone over the page; there the wheel zooms round
  // the pointer, a drag pans, a double-click resets and Escape (or the button) closes.
  function viewBox(svg) { return svg.getAttribute("viewBox").split(/[ ,]+/).map(Number); }
  function setView(svg, v) { svg.setAttribute("viewBox", v.join(" ")); }
  function close(fig) {
    var svg = fig.querySelector("svg");
    fig.classList.remove("zoomed");
    if (svg && svg.dataset.view) { svg.setAttribute("viewBox", svg.dataset.view); }
    var b = fig.querySelector("button.zoom");
    if (b) { b.textContent = "Zoom"; b.setAttribute("aria-pressed", "false"); }
    document.body.classList.remove("zooming");
  }
  Array.prototype.forEach.call(document.querySelectorAll("figure.plot"), function (fig) {
    var svg = fig.querySelector("svg");
    var button = fig.querySelector("button.zoom");
    if (!svg || !button || !svg.getAttribute("viewBox")) { return; }
    svg.dataset.view = svg.getAttribute("viewBox");
    button.addEventListener("click", function () {
      if (fig.classList.contains("zoomed")) { close(fig); return; }
      fig.classList.add("zoomed");
      document.body.classList.add("zooming");
      button.textContent = "Close";
      button.setAttribute("aria-pressed", "true");
    });
    svg.addEventListener("wheel", function (e) {
      if (!fig.classList.contains("zoomed")) { return; }
      e.preventDefault();
      var v = viewBox(svg);
      var q = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
      var k = e.deltaY < 0 ? 0.8 : 1.25;
      setView(svg, [q.x - (q.x - v[0]) * k, q.y - (q.y - v[1]) * k, v[2] * k, v[3] * k]);
    }, {passive: false});
    var drag = null;
    svg.addEventListener("mousedown", function (e) {
      if (fig.classList.contains("zoomed")) { drag = {x: e.clientX, y: e.clientY, v: viewBox(svg)}; }
    });
    window.addEventListener("mouseup", function () { drag = null; });
    svg.addEventListener("mousemove", function (e) {
      if (!drag) { return; }
      var s = Math.abs(svg.getScreenCTM().a);
      setView(svg, [drag.v[0] - (e.clientX - drag.x) / s, drag.v[1] - (e.clientY - drag.y) / s, drag.v[2], drag.v[3]]);
    });
    svg.addEventListener("dblclick", function () { svg.setAttribute("viewBox", svg.dataset.view); });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") { return; }
    Array.prototype.forEach.call(document.querySelectorAll("figure.zoomed"), close);
  });
}());
