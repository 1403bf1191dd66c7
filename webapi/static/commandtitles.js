// @ts-check
// Each game command's name as a player reads it, in the rulebook's words: the headings of its
// form and decision buttons, "Possible now" and "All commands". The command's own name stays
// the value sent; a command this page has no title for reads as its name in words.
const TITLES = {
  // Quest Calendar
  apply_condition: "Apply a condition",
  assign_crew: "Assign crew to a compartment",
  boost_attack: "Boost the attack",
  boost_damage: "Boost the damage",
  buy: "Buy an item",
  change_virtue: "Change virtue",
  choose_clone_outcome: "Choose what the clone becomes",
  choose_loot: "Choose the equipment lost",
  choose_rest_stat: "Choose the stat the Rest restores",
  combat_round: "Play the next combat round",
  decide_pickpocket: "Keep or refuse the pickpocketed credits",
  dogfight: "Fight a dogfight",
  dogfight_round: "Play the next dogfight round",
  eat_rations: "Eat meal rations",
  end_page: "End the page",
  enter_shop: "Enter a shop",
  equip: "Equip an item",
  gain_credits: "Gain credits",
  gain_item: "Gain an item",
  hire_crew: "Hire crew",
  install_upgrade: "Install a ship upgrade",
  leave_shop: "Leave the shop",
  level_up: "Level up",
  make_choice: "Make the page's choice",
  pay: "Pay",
  pickpocket: "Pickpocket",
  play_lottery: "Play the Sunday lottery",
  repair_ship: "Repair the ship",
  resolve_dogfight_round: "Finish the dogfight round",
  resolve_round: "Finish the combat round",
  resolve_rounds: "Finish the combat's rounds",
  rest: "Rest",
  select_hero: "Choose the hero",
  sell: "Sell an item",
  sell_upgrade: "Sell a ship upgrade",
  start_combat: "Start a combat",
  start_dogfight: "Start a dogfight",
  start_page: "Start a page",
  theft: "Lose credits to theft",
  trait_check: "Make a trait check",
  unequip: "Unequip an item",
  use_ability: "Use an ability",
  use_item: "Use an item",
  // The Calendar Board
  assign_hail_damage: "Choose the piece the hail damages",
  choose_ambush: "Choose the ambush",
  choose_supply_weapon: "Choose the weapon to resupply",
  day_sleep: "Sleep through the day",
  declare_action: "Cast a sight spell or fortify",
  decline_fate_reroll: "Keep the roll",
  end_turn: "End the turn",
  fate_reroll: "Use a fate reroll",
  night_action: "Take the night action",
  order_creatures: "Order the creatures",
  raise_annustar: "Change the Annustar damage",
  roll_movement: "Roll movement",
  roll_night: "Make the night roll",
  start_acting: "Start acting",
};

/**
 * @param {string} name
 * @returns {string}
 */
export function commandTitle(name) {
  return TITLES[name] ?? String(name).replaceAll("_", " ");
}

export const COMMAND_TITLES = TITLES;
