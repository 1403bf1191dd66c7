// What the signed-in token may do on a campaign. The API has no "who am I" route, so the page
// asks it with two requests that never store anything: an approval of a proposal that cannot
// exist (refused before any rule: the refusal names the role, or the seat the token acts for)
// and, for a seated token, the owner's member list.
import { ApiError, get, post } from "./api.js";

export async function whoAmI(campaignId) {
  let seat = null;
  try {
    await post(`/campaigns/${campaignId}/rollback/proposals/none/approve`, {});
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const detail = error.problem.detail || "";
    if (error.status === 403) {
      const role = /role '(\w+)'/.exec(detail);
      if (role) return { role: role[1], seat: null, canPlay: false, owner: false };
      const found = /\(player = (?:'([^']*)'|None)\)/.exec(detail);
      seat = found ? found[1] ?? null : null;
    } else if (error.status === 404 || error.status === 422) {
      return { role: "admin", seat: null, canPlay: true, owner: true };
    } else if (error.status === 401) {
      throw error;
    }
  }
  try {
    await get(`/campaigns/${campaignId}/members`);
    return { role: "owner", seat, canPlay: true, owner: true };
  } catch {
    return { role: "player", seat, canPlay: true, owner: false };
  }
}
