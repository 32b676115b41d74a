/** The part of `marked-terminal` 7 we use (the package ships no types). */
declare module "marked-terminal" {
  import type { MarkedExtension } from "marked";
  export function markedTerminal(
    options?: { width?: number; reflowText?: boolean; tab?: number },
    highlightOptions?: Record<string, unknown>,
  ): MarkedExtension;
}
