// @ts-check
// The checks of the current page, in words, for a field that names one by its 0-based index
// (`use_ability`'s `on_roll`, QC-14): "Check 2: STR check, 9 against 12, failed".
import { clear, h } from "./dom.js";

const words = (text) => String(text).replaceAll("_", " ");

export function checkWords(check, index) {
  const what = check.purpose ? words(check.purpose) : check.trait ? `${words(check.trait)} check` : "check";
  const total = check.total !== undefined && check.total !== null ? `, ${check.total}` : "";
  const target = check.target !== undefined && check.target !== null ? ` against ${check.target}` : "";
  const verdict = check.success === true ? ", passed" : check.success === false ? ", failed" : "";
  return `Check ${index + 1}: ${what}${total}${target}${verdict}`;
}

// A select of the page's checks; its value is the check's index (a whole number).
export function checkControl(common, ctx) {
  const input = h("select", common);
  const refresh = () => {
    const chosen = input.value;
    const checks = ctx.state()?.page?.checks || [];
    clear(
      input,
      h("option", { value: "" }, checks.length ? "(not set)" : "(no check on this page yet)"),
      checks.map((check, i) => h("option", { value: String(i) }, checkWords(check, i))),
    );
    if ([...input.options].some((o) => o.value === chosen)) input.value = chosen;
  };
  refresh();
  ctx.refreshers.push(refresh);
  return {
    input,
    read: () => (input.value === "" ? undefined : Number(input.value)),
    set: (value) => {
      if (![...input.options].some((o) => o.value === String(value)))
        input.append(h("option", { value: String(value) }, `Check ${Number(value) + 1}`));
      input.value = String(value);
    },
  };
}
