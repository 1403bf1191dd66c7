// @ts-check
// A refusal of the API (a problem+json answer, api.js's ApiError) or any other error, in words.

// A problem+json answer in one sentence: the rule, the detail and the fields' messages, each once
// (a 422's detail already names its one field: "partner: name the partner…").
/**
 * @param {{message?: string, problem?: import("./api.js").Problem}} problem an ApiError, or any Error
 * @returns {string}
 */
export function explain(problem) {
  const p = problem.problem || {};
  const detail = String(p.detail || problem.message || "");
  const bits = [];
  if (p.rule && !detail.includes(p.rule)) bits.push(`[${p.rule}]`);
  if (detail) bits.push(detail);
  if (p.errors && typeof p.errors === "object") {
    const more = Object.entries(p.errors)
      .map(
        ([k, v]) =>
          `${k}: ${Array.isArray(v) && v.every((m) => typeof m === "string") ? v.join(" ") : JSON.stringify(v)}`,
      )
      .filter((line) => !detail.includes(line));
    if (more.length) bits.push(more.join("; "));
  }
  return bits.join(" ");
}
