// @ts-check
// The dice faces counted for the charts (figures.js), with no DOM: the faces of the loaded rolls
// per die type against the counts a fair die gives, and each chart's title in words.

/** @typedef {import("./api.js").Roll} Roll */

/**
 * The faces of one die type: how often each face 1 to `sides` came up, against a fair die's count.
 * @typedef {object} FaceCount
 * @property {number} sides
 * @property {number} total the dice of this type counted
 * @property {Record<number, number>} counts times each face 1 to `sides` came up
 * @property {Record<number, number>} expected times a fair die gives each: total / sides
 */

/**
 * "1 die", "3 dice".
 * @param {number | string} n
 * @returns {string}
 */
export const diceCount = (n) => `${n} ${Number(n) === 1 ? "die" : "dice"}`;

/**
 * The faces of the rolls not undone, per die type, fewest sides first.
 * @param {Roll[]} rolls
 * @returns {FaceCount[]}
 */
export function countFaces(rolls) {
  /** @type {Map<number, Record<number, number>>} the times each face came up, by sides */
  const bySides = new Map();
  for (const roll of rolls.filter((r) => !r.undone)) {
    for (const die of roll.dice) {
      const sides = Number(die.sides);
      const face = Number(die.face);
      if (!bySides.has(sides)) bySides.set(sides, {});
      const counts = bySides.get(sides);
      counts[face] = (counts[face] || 0) + 1;
    }
  }
  return [...bySides.entries()].sort((a, b) => a[0] - b[0]).map(([sides, seen]) => {
    const total = Object.values(seen).reduce((a, b) => a + b, 0);
    /** @type {Record<number, number>} */
    const counts = {};
    /** @type {Record<number, number>} */
    const expected = {};
    for (let f = 1; f <= sides; f++) {
      counts[f] = seen[f] || 0;
      expected[f] = total / sides;
    }
    return { sides, total, counts, expected };
  });
}

/**
 * The title of a die type's chart counted here, from the loaded rolls.
 * @param {FaceCount} count
 * @returns {string}
 */
export const loadedFacesTitle = ({ sides, total }) => `d${sides}: ${diceCount(total)} in the loaded rolls`;

/**
 * The title of a die type's chart of the server's fairness analytics
 * (GET /campaigns/{id}/analytics/dice): its sides, source, how many dice, and the test's p-value
 * when there is one.
 * @param {{sides: number, source: string, dice: number, test?: {p_value: number} | null}} d
 * @returns {string}
 */
export const serverFacesTitle = (d) =>
  `d${d.sides} (${d.source}), ${diceCount(d.dice)}${d.test ? `, p = ${Number(d.test.p_value).toFixed(3)}` : ""}`;
