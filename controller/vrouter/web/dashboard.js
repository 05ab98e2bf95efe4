// vrouter dashboard: polls api/state once a second and redraws each switch's tables and
// per-port traffic plots (inline SVG). Every number cell carries its raw value in
// data-value; rows have ids "<switch>-<kind>-<key>" (used by the browser test).
"use strict";

const POLL_MS = 1000;

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

function si(value, unit) {           // 12345678 -> "12.3 M" + unit
  if (value === "" || value === null || value === undefined) return "";
  const steps = [[1e9, "G"], [1e6, "M"], [1e3, "k"]];
  for (const [size, prefix] of steps) {
    if (Math.abs(value) >= size) return (value / size).toFixed(1) + " " + prefix + unit;
  }
  return (Math.round(value * 10) / 10) + " " + unit;
}

// A cell: `field` names it, `value` is the raw number or text, `text` what is shown.
// `packets`: a count kept beside a rate (data-packets).
function cell(field, value, text, numeric, packets) {
  const shown = text === undefined ? value : text;
  const extra = packets === undefined ? "" : ` data-packets="${esc(packets)}"`;
  return `<td data-field="${esc(field)}" data-value="${esc(value)}"${extra}${numeric ? ' class="n"' : ""}>${esc(shown)}</td>`;
}
const num = (field, value) => cell(field, value, value, true);
const pps = (field, value) => cell(field, value, si(value, "pkt/s"), true);
const bps = (field, value) => cell(field, value, si(value, "bit/s"), true);

function table(id, headers, rows) {
  if (!rows.length) return `<p class="empty" id="${esc(id)}">none</p>`;
  return `<table id="${esc(id)}"><thead><tr>${headers.map(h => `<th>${esc(h)}</th>`).join("")}</tr></thead>` +
         `<tbody>${rows.join("")}</tbody></table>`;
}

const row = (id, cells) => `<tr id="${esc(id)}">${cells.join("")}</tr>`;

// Two lines (rx, tx bit/s) over the last `seconds`, scaled to the larger peak.
function plot(points, seconds, now) {
  const w = 160, h = 34;
  if (!points || points.length < 2) return `<svg class="plot" width="${w}" height="${h}"></svg>`;
  const peak = Math.max(1, ...points.map(p => Math.max(p[1], p[2])));
  const span = Math.min(seconds, Math.max(30, now - points[0][0]));   // a young history fills the plot
  const line = k => points.filter(p => now - p[0] <= span).map(p => {
    const x = w - (now - p[0]) / span * w, y = h - 2 - p[k] / peak * (h - 4);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  }).join(" ");
  return `<svg class="plot" width="${w}" height="${h}" data-points="${points.length}" data-peak="${peak}">` +
         `<title>peak ${si(peak, "bit/s")}</title><rect class="bg" width="${w}" height="${h}"/>` +
         `<polyline class="rx" points="${line(1)}"/><polyline class="tx" points="${line(2)}"/></svg>`;
}

function controllerLine(c) {
  if (!c || !c.running) return `<span class="muted">no vrouter run managing it</span>`;
  const sync = c.synced ? `<span class="ok">in sync</span>` :
    `<span class="bad">NOT in sync</span> (${esc(c.failures)} failures; last: ${esc(c.last_error)}; retry in ${esc(c.retry_in)} s)`;
  const locked = c.locked_ports.length ? `; locked ports ${esc(c.locked_ports.join(", "))}` : "";
  return `vrouter run pid ${esc(c.pid)}: ${sync}; <span data-field="stations" data-value="${esc(c.stations)}">` +
         `${esc(c.stations)}</span> learned stations${locked}`;
}

function renderSwitch(sw, history, now, seconds) {
  const id = sw.switch;
  let html = `<section class="switch" id="switch-${esc(id)}"><h2>${esc(id)} <span class="muted">${esc(sw.address || "")}</span> `;
  html += sw.ok ? `<span class="ok">switch answering</span>` : `<span class="bad">${esc(sw.error)}</span>`;
  html += `</h2><div>${controllerLine(sw.controller)}</div>`;
  if (!sw.ok) return html + "</section>";

  const ports = sw.ports.map(p => row(`${id}-port-${p.port}`, [
    num("port", p.port), cell("name", p.name), cell("mode", p.mode),
    cell("vlans", [p.untagged ? `${p.untagged}u` : "", ...p.tagged.map(v => `${v}t`)].filter(Boolean).join(" ")),
    pps("rx_pps", p.rx_pps), bps("rx_bps", p.rx_bps), pps("tx_pps", p.tx_pps), bps("tx_bps", p.tx_bps),
    num("rx_packets", p.rx_packets), num("tx_packets", p.tx_packets), num("drops", p.drops),
    `<td data-field="plot">${plot(history[String(p.port)], seconds, now)}</td>`]));
  html += `<h3>Ports <span class="legend">(plot: up to the last ${seconds} s of <span class="rx">rx</span> and ` +
          `<span class="tx">tx</span> bit/s)</span></h3>`;
  html += table(`${id}-ports`, ["port", "name", "mode", "VLANs", "rx pkt/s", "rx bit/s", "tx pkt/s", "tx bit/s", "rx packets", "tx packets",
                                "drops (locked)", "traffic"], ports);

  html += `<div class="grid"><div>`;
  html += `<h3>Drops by reason</h3>` + table(`${id}-drops`, ["where", "reason", "packets", "rate"],
    sw.drops.map(d => row(`${id}-drop-${d.where}-${d.reason}`, [cell("where", d.where), cell("reason", d.reason),
                                                                 num("packets", d.packets), pps("pps", d.pps)])));
  html += `<h3>VLANs</h3>` + table(`${id}-vlans`, ["VLAN", "name", "interface", "member ports", "packets", "rate"],
    sw.vlans.map(v => row(`${id}-vlan-${v.vlan}`, [num("vlan", v.vlan), cell("name", v.name),
      cell("interface", v.interface), cell("ports", v.ports), num("packets", v.packets), pps("pps", v.pps)])));
  html += `<h3>Router interfaces</h3>` + table(`${id}-interfaces`, ["VLAN", "address", "MAC", "MTU", "NAT"],
    sw.interfaces.map(i => row(`${id}-interface-${i.vlan}`, [num("vlan", i.vlan), cell("address", i.address),
      cell("mac", i.mac), num("mtu", i.mtu), cell("nat", i.masquerade ? "masquerade" : "")])));
  html += `<h3>Neighbours</h3>` + table(`${id}-neighbors`, ["address", "MAC", "port", "VLAN"],
    sw.neighbors.map(n => row(`${id}-neighbor-${n.ip}`, [cell("ip", n.ip), cell("mac", n.mac), num("port", n.port),
                                                          num("vlan", n.vlan)])));
  html += `</div><div>`;
  html += `<h3>Routes</h3>` + table(`${id}-routes`, ["prefix", "action", "next hop", "packets", "rate"],
    sw.routes.map(r => row(`${id}-route-${r.prefix}`, [cell("prefix", r.prefix), cell("action", r.action),
      cell("next_hop", r.next_hop), num("packets", r.packets), pps("pps", r.pps)])));
  html += `<h3>ACL</h3>` + table(`${id}-acl`, ["rule", "priority", "match", "action", "hits", "rate"],
    sw.acl.map(a => row(`${id}-acl-${a.rule}`, [num("rule", a.rule), num("priority", a.priority),
      cell("match", a.match), cell("action", a.action), num("packets", a.packets), pps("pps", a.pps)])));
  html += `<h3>Policers</h3>` + table(`${id}-policers`, ["meter", "index", "CIR", "PIR", "green", "yellow", "red"],
    sw.policers.map(m => row(`${id}-policer-${m.meter}-${m.index}`, [cell("meter", m.meter), num("index", m.index),
      bps("cir", m.cir_bit_s), bps("pir", m.pir_bit_s),
      ...["green", "yellow", "red"].map(c => cell(`${c}_bps`, m[`${c}_bps`],
        `${si(m[`${c}_bps`], "bit/s")} (${si(m[`${c}_pps`], "pkt/s")})`, false, m[`${c}_packets`]))])));
  html += `<h3>MPLS LSPs</h3>` + table(`${id}-lsps`, ["in label", "action", "out label", "next hop", "packets", "rate"],
    sw.lsps.map((l, k) => row(`${id}-lsp-${k}`, [cell("in_label", l.in_label), cell("action", l.action),
      cell("out_label", l.out_label), cell("next_hop", l.next_hop), num("packets", l.packets), pps("pps", l.pps)])));
  html += `<h3>Pseudowires</h3>` + table(`${id}-pseudowires`, ["VPLS", "VLAN", "peer", "in/out label", "next hop",
                                                             "packets in", "rate in", "flooded out"],
    sw.pseudowires.map(p => row(`${id}-pw-${p.in_label}`, [cell("vpls", p.vpls), num("vlan", p.vlan),
      cell("peer", p.peer), cell("labels", `${p.in_label}/${p.out_label}`), cell("next_hop", p.next_hop),
      num("packets_in", p.packets_in), pps("pps_in", p.pps_in), num("flooded_out", p.flooded_out)])));
  html += `</div></div></section>`;
  return html;
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    const reply = await fetch("api/state", {cache: "no-store"});
    if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
    const state = await reply.json();
    document.getElementById("switches").innerHTML =
      state.switches.map(sw => renderSwitch(sw, sw.history, state.time, state.history_seconds)).join("");
    status.textContent = `${state.switches.length} switch(es), sampled every ${state.interval} s`;
    status.className = "muted";
    const updated = document.getElementById("updated");
    updated.textContent = "updated " + new Date(state.time * 1000).toLocaleTimeString();
    updated.dataset.value = state.time;
  } catch (err) {
    status.textContent = `cannot reach the dashboard server: ${err.message}`;
    status.className = "bad";
  }
}

refresh();
setInterval(refresh, POLL_MS);
