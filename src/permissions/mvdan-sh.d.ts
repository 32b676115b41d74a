/**
 * The part of `mvdan-sh` (mvdan/sh's bash parser, compiled to JavaScript with GopherJS) that
 * shell-commands.ts uses. Nodes are Go structs seen from JavaScript: fields are properties, slices
 * are arrays, and `syntax.NodeType(node)` names the Go type (`CallExpr`, `Lit`, …). Field names
 * follow https://pkg.go.dev/mvdan.cc/sh/v3/syntax.
 */
declare module "mvdan-sh" {
  /** A byte position in the parsed source. */
  export interface ShellPosition {
    Offset(): number;
  }
  /** Any syntax node; which fields exist depends on {@link ShellSyntax.NodeType}. */
  export interface ShellNode {
    Pos(): ShellPosition;
    End(): ShellPosition;
    readonly [field: string]: unknown;
  }
  export interface ShellParser {
    /** @throws a ParseError object with `Text` (message) and `Incomplete`. */
    Parse(source: string, name: string): ShellNode;
  }
  export interface ShellSyntax {
    NewParser(): ShellParser;
    NodeType(node: ShellNode): string;
    /** Visits `node` and, while `visit` returns true, its children, depth first; `null` ends a node. */
    Walk(node: ShellNode, visit: (node: ShellNode | null) => boolean): void;
  }
  const mvdanSh: { syntax: ShellSyntax };
  export default mvdanSh;
}
