// @ts-check
// What the signed-in token may do on a campaign: GET /campaigns/{id}/me answers from the same
// table the server's access control refuses by, so the page never offers what it would refuse.
import { get } from "./api.js";

export async function whoAmI(campaignId) {
  const me = await get(`/campaigns/${campaignId}/me`);
  return { role: me.role, seat: me.seat ?? null, canPlay: me.can_append, owner: me.can_manage };
}
