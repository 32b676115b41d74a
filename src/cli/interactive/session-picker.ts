import {
  type Component,
  Container,
  matchesKey,
  type SelectItem,
  SelectList,
  Text,
} from "@mariozechner/pi-tui";
import { age } from "../../session/age.js";
import { type SessionSummary, summaryLine } from "../../session/session-store.js";
import { isPrintable } from "./screen.js";
import type { Theme } from "./theme.js";

/**
 * A picker of sessions, newest first, one row each as `/sessions` lists them: short id, age (a
 * column as wide as the widest, before the prompt so that no width of terminal and no length
 * of prompt hides it), first prompt; a row longer than the terminal is cut at its edge.
 * Typing filters it (every word typed must appear in the id or the first prompt, case
 * ignored), Backspace widens it again. `done` gets the chosen session's id, or `undefined` when
 * it is dismissed with Esc.
 */
export function sessionPicker(
  sessions: readonly SessionSummary[],
  theme: Theme,
  title: string,
  done: (sessionId: string | undefined) => void,
): Component {
  const ages = sessions.map((summary) => age(summary.lastActivity));
  const ageWidth = Math.max(0, ...ages.map((text) => text.length));
  const rows: PickerRow[] = sessions.map((summary, index) => {
    const prompt = summaryLine(summary);
    const label = `${summary.sessionId.slice(0, 8)}  ${(ages[index] ?? "").padEnd(ageWidth)}  ${prompt}`;
    return {
      item: { value: summary.sessionId, label },
      searched: `${summary.sessionId} ${prompt}`,
    };
  });
  return new Picker(rows, theme, `${title} (type to filter, ↑/↓, Enter opens, Esc cancels)`, {
    select: (item) => done(item.value),
    cancel: () => done(undefined),
  });
}

/** A picker's row: what it shows, and the text typed words are looked for in (lower case). */
interface PickerRow {
  item: SelectItem;
  searched: string;
}

/** How many sessions the picker shows at once. */
const PICKER_ROWS = 10;

/**
 * A title, the filter typed so far and a list that takes the keys; typing narrows the list. A
 * filter that matches no row says "No matching sessions" (pi-tui's list would say "No matching
 * commands").
 */
class Picker extends Container {
  private query = "";
  private list: SelectList;
  private shown = 0;
  private readonly heading: Text;
  private readonly noMatch: Text;

  constructor(
    private readonly rows: readonly PickerRow[],
    private readonly theme: Theme,
    private readonly title: string,
    private readonly on: { select: (item: SelectItem) => void; cancel: () => void },
  ) {
    super();
    this.heading = new Text("", 0, 0);
    this.noMatch = new Text(theme.selectList.noMatch("  No matching sessions"), 0, 0);
    this.list = this.createList();
    this.refresh();
  }

  handleInput(data: string): void {
    if (matchesKey(data, "backspace")) {
      this.query = [...this.query].slice(0, -1).join("");
    } else if (isPrintable(data)) {
      this.query += data;
    } else {
      this.list.handleInput(data);
      return;
    }
    this.list = this.createList();
    this.refresh();
  }

  private createList(): SelectList {
    const words = this.query
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word !== "");
    const shown = this.rows
      .filter((row) => words.every((word) => row.searched.toLowerCase().includes(word)))
      .map((row) => row.item);
    this.shown = shown.length;
    // No descriptions: a row is one label, cut at the terminal's edge.
    const list = new SelectList(
      shown,
      Math.min(PICKER_ROWS, Math.max(1, shown.length)),
      this.theme.selectList,
    );
    list.onSelect = this.on.select;
    list.onCancel = this.on.cancel;
    return list;
  }

  private refresh(): void {
    const filter = this.query === "" ? "" : `\nfilter: ${this.query}`;
    this.heading.setText(this.theme.bold(this.title) + filter);
    this.clear();
    this.addChild(this.heading);
    this.addChild(this.shown === 0 ? this.noMatch : this.list);
    this.invalidate();
  }
}
