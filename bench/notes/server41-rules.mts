// Session 41 (bench/notes/server41.md):
//   node --import tsx bench/notes/server41-rules.mts <a checkout's src folder> <path|bash-same|bash-new> [decisions]
// CPU per `rulesCover` decision against 21 rules (16 bash, 5 path): an edit's path, the same bash
// command every time (its analysis kept from the decision before), or a new bash command each time
// (`npx vitest run test/a<i>.test.ts`, whose inner command is a second parse). The given number of
// decisions (default 20,000) is timed after up to 2,000 to warm up.
const [root, kind = "path", decisionsText = "20000"] = process.argv.slice(2);
const { rulesCover, parseRule } = await import(`${root}/permissions/permission-rules.ts`);
const texts = [
  "bash(git status)",
  "bash(git log *)",
  "bash(git diff *)",
  "bash(npm test *)",
  "bash(npm run build)",
  "bash(ls *)",
  "bash(cat *)",
  "bash(grep *)",
  "bash(rg *)",
  "bash(find *)",
  "bash(node *)",
  "bash(npx vitest run *)",
  "bash(head *)",
  "bash(tail *)",
  "bash(wc *)",
  "bash(echo *)",
  "view(src/**)",
  "view(test/**)",
  "edit(src/**/*.ts)",
  "edit(test/**/*.ts)",
  "create(src/**)",
];
const rules = texts.map((text) => parseRule(text));
const cwd = "/work/project";
const decisions = Number(decisionsText);
const subjectAt = (index: number) =>
  kind === "path"
    ? { toolName: "edit", paths: [`/work/project/test/x${index % 7}/y.ts`] }
    : {
        toolName: "bash",
        paths: [],
        command: `npx vitest run test/a${kind === "bash-same" ? "" : index}.test.ts`,
      };
let covered = 0;
for (let index = 0; index < Math.min(decisions, 2000); index++) {
  covered += rulesCover(rules, subjectAt(index), cwd) ? 1 : 0;
}
const start = process.cpuUsage();
for (let index = 0; index < decisions; index++) {
  covered += rulesCover(rules, subjectAt(index), cwd) ? 1 : 0;
}
const used = process.cpuUsage(start);
const perDecision = (used.user + used.system) / decisions;
console.log(
  JSON.stringify({ root, kind, microsecondsPerDecision: perDecision.toFixed(1), covered }),
);
