import { createInterface } from "node:readline";
import type { PermissionReply } from "../../permissions/permission-decision.js";
import type { SessionMode } from "../../session/commands.js";
import type { SessionHost } from "../../session/host.js";
import { attachedFileNames, attachedFilesLine } from "../../session/prompt-attachments.js";
import type { SessionSummary } from "../../session/session-store.js";
import { LiveCommandOutput, OutputFollower } from "../output-follower.js";
import {
  answerFor,
  notAnAnswer,
  permissionChoices,
  TELL_QUESTION,
  toldReply,
} from "../permission-answers.js";
import { permissionHeadline, permissionPreview } from "../permission-preview.js";
import { renderConversation } from "../render.js";
import { TerminalRenderer } from "../terminal-renderer.js";
import { wrapChoices, wrapText } from "../text-wrap.js";
import { Controller } from "./controller.js";
import type { ConversationView, ShellRunView } from "./conversation-view.js";
import { EXIT, notSavedLine, openingMode, openSession, type SessionChoice } from "./open.js";

export interface PlainFaceSettings {
  host: SessionHost;
  cwd: string;
  choice: SessionChoice;
  mode: SessionMode;
  firstPrompt?: string;
  input: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * The interactive face as plain lines, for `TERM=dumb` (and any terminal that cannot take escape
 * sequences): one line is one input, answers stream as text, tool calls are one line each (a
 * command's output printed under a line naming it as it comes, before its ✓/✗ line), a
 * permission question is answered on the next line (y / a / n / t). The same controller, commands
 * and session as the full-screen face. End of input exits.
 * @returns the exit code: 1 when storage refused the session (a `session.error` of type
 * `storage`), else 0.
 */
export async function runPlainFace(settings: PlainFaceSettings): Promise<number> {
  const { host, stdout, stderr } = settings;
  const lines = lineReader(settings.input, stdout);
  const pickByNumber = numberPicker(stdout, lines);
  const opened = await openSession(host, settings.cwd, settings.choice, pickByNumber);
  if (!opened.ok) {
    lines.close();
    stderr.write(`turnloop: ${opened.message}\n`);
    return opened.code;
  }
  const mode = openingMode(host, opened.session, settings.mode);
  const controller = new Controller(host, opened.session, opened.model, mode);
  const drawing = new PlainDrawing(stdout);
  let exit = false;
  controller.onExit = () => {
    exit = true;
  };
  const view = plainView(stdout, drawing, lines, pickByNumber, () => controller.cancel());
  const storageFailed = watchStorageErrors(view);
  // Ctrl-C cancels a running prompt; on an idle line it exits.
  const onInterrupt = () => {
    if (controller.busy) {
      controller.cancel();
    } else {
      exit = true;
      lines.close();
    }
  };
  process.on("SIGINT", onInterrupt);
  await controller.attach(view);
  const submit = submitter(controller, drawing, stdout);
  if (settings.firstPrompt !== undefined) {
    await submit(settings.firstPrompt);
  }
  while (!exit) {
    const line = await lines.read("> ");
    if (line === undefined) {
      // End of input (Ctrl-D, Ctrl-C, the pipe's end) left the prompt open: end its line.
      stdout.write("\n");
      break;
    }
    await submit(line);
  }
  process.off("SIGINT", onInterrupt);
  lines.close();
  await controller.close();
  const { id } = controller.session;
  stdout.write(`${notSavedLine(controller.session) ?? `session ${id}`}\n`);
  return storageFailed() ? EXIT.error : EXIT.ok;
}

/**
 * The renderer of the open session's events on plain lines: each session opened gets a new one
 * ({@link renew}), with all it holds per session (its session model, the calls whose output was
 * headed, the plan shown). Kept, a call of the next session whose id was headed before lost its
 * `● bash …` heading (ids a server numbers per conversation come again: trial 40).
 */
class PlainDrawing {
  renderer: TerminalRenderer;

  constructor(private readonly stdout: NodeJS.WritableStream) {
    this.renderer = this.newRenderer();
  }

  /** Another session is drawn: the line is ended, and its events go to a new renderer. */
  renew(): void {
    this.renderer.endLine();
    this.renderer = this.newRenderer();
  }

  private newRenderer(): TerminalRenderer {
    return new TerminalRenderer(this.stdout, this.stdout, false, {
      allReplies: true,
      liveOutput: new LiveCommandOutput(),
    });
  }
}

/** Lists `sessions` numbered on `stdout`; @returns the id of the one whose number is read. */
function numberPicker(stdout: NodeJS.WritableStream, lines: LineReader) {
  return async (sessions: readonly SessionSummary[]): Promise<string | undefined> => {
    sessions.forEach((summary, index) => {
      stdout.write(
        `${index + 1}. ${summary.sessionId.slice(0, 8)}  ${summary.firstPrompt ?? ""}\n`,
      );
    });
    const answer = await lines.read("resume which? (number) > ");
    return sessions[Number(answer) - 1]?.sessionId;
  };
}

/**
 * Watches what `view` shows for a `session.error` of type `storage` (a full disk, a folder made
 * unwritable: README, "Where sessions are kept"), which fails the run as it fails `-p`, one that
 * came after the prompt's `session.idle` included. @returns whether one came so far.
 */
function watchStorageErrors(view: ConversationView): () => boolean {
  let failed = false;
  const show = view.show.bind(view);
  view.show = (event) => {
    failed ||= event.type === "session.error" && event.data.errorType === "storage";
    show(event);
  };
  return () => failed;
}

/**
 * Sends a line to the session; once it is done, ends the reply's line and says how a limit
 * stopped the prompt (`stopped: reached the turn limit (1); send a message to go on`), as the
 * terminal face's status row does.
 */
function submitter(
  controller: Controller,
  drawing: PlainDrawing,
  stdout: NodeJS.WritableStream,
): (text: string) => Promise<void> {
  return async (text) => {
    await controller.submit(text);
    drawing.renderer.endLine();
    const ending = controller.takeEnding();
    if (ending !== undefined) {
      stdout.write(`${ending}\n`);
    }
  };
}

/**
 * The conversation as plain lines on `stdout`: every reply streamed, tool calls one line each;
 * `cancelPrompt` cancels the running prompt (end of input at a permission question).
 */
function plainView(
  stdout: NodeJS.WritableStream,
  drawing: PlainDrawing,
  lines: LineReader,
  pickSession: ConversationView["pickSession"],
  cancelPrompt: () => void,
): ConversationView {
  const note = (text: string) => {
    drawing.renderer.endLine();
    stdout.write(`${wrapText(text, (stdout as { columns?: number }).columns)}\n`);
  };
  return {
    // The controller's banner already names the session, its model and folder; the log's last
    // reopen is this one.
    history: (events) =>
      stdout.write(renderConversation(events, { startLine: false, openNow: true })),
    show: (event) => {
      drawing.renderer.handle(event);
      // The `@file`s a prompt attached, named under the line it was typed on.
      const files =
        event.type === "user.message"
          ? attachedFilesLine(attachedFileNames(event.data))
          : undefined;
      if (files !== undefined) {
        note(files);
      }
    },
    note,
    clear: () => drawing.renew(),
    statusChanged: () => undefined,
    ask: (request, signal) =>
      askOnLines(request, signal, lines, drawing.renderer, stdout, cancelPrompt),
    confirm: async (question) =>
      /^(y|yes)$/i.test(((await lines.answer(`${question.join("\n")} [y/N] `)) ?? "").trim()),
    pickSession,
    shellRun: (command) => {
      note(`$ ${command}`);
      return shellLines(note);
    },
  };
}

/**
 * A `!command`'s output as lines printed as they come (output-follower.ts), each as its finished
 * output's lines are: by `note`, as they are; a command that ended before any report prints its
 * output then.
 */
function shellLines(note: (text: string) => void): ShellRunView {
  const follower = new OutputFollower();
  const print = (lines: readonly string[]) => {
    if (lines.length > 0) {
      note(lines.join("\n"));
    }
  };
  return {
    progress: (output) => print(follower.follow(output)),
    end: (output) => print(follower.followed ? follower.finish() : [output].filter(Boolean)),
  };
}

/** Lines of `input`, one per {@link LineReader.read}; `undefined` once the input has ended. */
interface LineReader {
  /** Writes `promptText`, then gives the next line. */
  read(promptText: string): Promise<string | undefined>;
  /**
   * Writes `promptText`, then gives the next line typed after it when `input` is a terminal:
   * lines typed before (messages typed while the model worked) stay queued for
   * {@link LineReader.read}, never taken as the answer to a question nobody had seen. From a pipe,
   * the next line, as {@link LineReader.read} (a script's lines are meant as the answers).
   */
  answer(promptText: string): Promise<string | undefined>;
  close(): void;
}

function lineReader(input: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): LineReader {
  const lines = createInterface({ input, terminal: false });
  const queue: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  const answering: Array<(line: string | undefined) => void> = [];
  let ended = false;
  lines.on("line", (line) => {
    const next = answering.shift() ?? waiting.shift();
    if (next === undefined) {
      queue.push(line);
    } else {
      next(line);
    }
  });
  lines.on("close", () => {
    ended = true;
    for (const next of [...answering.splice(0), ...waiting.splice(0)]) {
      next(undefined);
    }
  });
  const read = (promptText: string) => {
    stdout.write(promptText);
    const queued = queue.shift();
    if (queued !== undefined || ended) {
      return Promise.resolve(queued);
    }
    return new Promise<string | undefined>((resolve) => waiting.push(resolve));
  };
  return {
    read,
    answer(promptText) {
      if ((input as { isTTY?: boolean }).isTTY !== true) {
        return read(promptText);
      }
      stdout.write(promptText);
      return ended ? Promise.resolve(undefined) : new Promise((resolve) => answering.push(resolve));
    },
    close: () => lines.close(),
  };
}

/**
 * A permission question as lines: the request and its preview, answered on the next line. A line
 * that is none of the answers is asked again (it was taken as a no, and a prompt meant for later
 * was eaten: a fresh user's trial), as often as it comes. End of input there is no answer, not a
 * no: it cancels the prompt (`cancelPrompt`) and answers `cancelled`, and the face then ends as on
 * end of input at the prompt.
 */
async function askOnLines(
  request: Parameters<ConversationView["ask"]>[0],
  signal: AbortSignal,
  lines: LineReader,
  renderer: TerminalRenderer,
  stdout: NodeJS.WritableStream,
  cancelPrompt: () => void,
): Promise<PermissionReply> {
  renderer.endLine();
  stdout.write([permissionHeadline(request), ...permissionPreview(request, false), ""].join("\n"));
  const width = (stdout as { columns?: number }).columns;
  const choices = wrapChoices(permissionChoices(request), width);
  let question = `${choices.join("\n")} > `;
  for (;;) {
    const typed = await lines.answer(question);
    if (typed === undefined && !signal.aborted) {
      stdout.write("\n");
      cancelPrompt();
    }
    if (typed === undefined || signal.aborted) {
      return { decision: "cancelled" };
    }
    const answer = answerFor(request, typed);
    if (answer === "tell") {
      return toldReply((await lines.answer(`${TELL_QUESTION} > `)) ?? "");
    }
    if (answer !== undefined) {
      return answer;
    }
    question = `\n${notAnAnswer(request, typed)}`;
  }
}
