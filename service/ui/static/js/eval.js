// The evaluation view: the last `hearth eval` report (GET /api/eval/last) as a compact table of
// retrieval and answer figures with its model, date and gold set; an empty state when none ran.

import { $, h, replace } from "./dom.js";
import { api } from "./api.js";

export function initEval() {
  $("#eval-refresh").addEventListener("click", () => showEval());
}

const share = (v) => (v === null || v === undefined ? "–" : v.toFixed(3));
const seconds = (v) => (v === null || v === undefined ? "–" : `${v.toFixed(2)} s`);
const rate = (v) => (v === null || v === undefined ? "–" : `${v.toFixed(1)} tokens/s`);

function rows(tbody, entries) {
  replace(tbody, entries.map(([label, value]) =>
    h("tr", {}, h("th", { scope: "row" }, label), h("td", { class: "num" }, value))));
}

/** Route: #/eval */
export async function showEval() {
  const status = $("#eval-status");
  status.textContent = "";
  status.classList.remove("error");
  let report;
  try {
    report = await api("/api/eval/last");
  } catch (e) {
    $("#eval-report").hidden = true;
    if (e.status === 404) {
      $("#eval-empty").hidden = false;
    } else {
      $("#eval-empty").hidden = true;
      status.textContent = e.message;
      status.classList.add("error");
    }
    return;
  }
  $("#eval-empty").hidden = true;
  $("#eval-report").hidden = false;
  const created = new Date(report.created);
  const facts = [
    ["Gold set", `${report.gold} (${report.kind})`],
    ["Collection", report.collection || "all"],
    ["Model", report.model || "–"],
    ["Date", Number.isNaN(created.getTime()) ? report.created : created.toLocaleString()],
    ["Took", `${report.seconds.toFixed(1)} s`],
  ];
  replace($("#eval-meta"), facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  const r = report.retrieval;
  rows($("#eval-retrieval tbody"), [
    ["Questions", String(r.questions)],
    ["Recall@1", share(r["recall@1"])],
    ["Recall@5", share(r["recall@5"])],
    ["Recall@10", share(r["recall@10"])],
    [`Recall@${report.k}`, share(r["recall@k"])],
    ["MRR", share(r.mrr)],
    ["nDCG@10", share(r["ndcg@10"])],
  ]);
  const a = report.answers;
  $("#eval-answers").hidden = !a;
  $("#eval-no-answers").hidden = Boolean(a);
  if (a) {
    rows($("#eval-answers tbody"), [
      ["Questions", String(a.questions)],
      ["Answer contains the expected", share(a.containment)],
      ["Abstention accuracy", share(a.abstention_accuracy)],
      ["Unanswerable declined", share(a.declined_unanswerable)],
      ["Answerable wrongly declined", share(a.declined_answerable)],
      ["Time to first token (median)", seconds(a.ttft_s.median)],
      ["Time to first token (p95)", seconds(a.ttft_s.p95)],
      ["Tokens/s (median)", rate(a.tokens_per_s.median)],
      ["Tokens/s (p95)", rate(a.tokens_per_s.p95)],
    ]);
  }
}
