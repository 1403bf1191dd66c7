// ESLint for the table page's JavaScript (webapi/static/*.js): plain ES modules that run in the
// browser as they are, with no build step. tests/page_lint/test_page_lint.py runs it;
// docs/table-page.md says how to run it by hand and why each rule is here.
import js from "@eslint/js";
import globals from "globals";

export default [
  // The recommended rules: undefined names, unreachable code, duplicate keys, and the like.
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      // Lines fit a side-by-side diff; a long message is a concatenation of shorter pieces.
      "max-len": ["error", { code: 120 }],
      // An unused import or variable is an error, not a warning (recommended's default, stated).
      "no-unused-vars": "error",
      // `===` everywhere: the page already spells `x === null || x === undefined` out.
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
];
