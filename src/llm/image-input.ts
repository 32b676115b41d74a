/**
 * Which models take no images (issue 27 item 5). The model catalogue (`@pydantic/genai-prices`,
 * llm/model-catalogue.ts) lists prices and context windows but not input modalities, so the
 * models whose makers document text-only input are listed here, by the name after the
 * `provider:` prefix. A model not listed is taken to accept images where its wire does.
 */

/** Which images a provider's requests carry; those it does not carry become a note to the model. */
export interface ImageInput {
  /** Images the user attached to a prompt. */
  user: boolean;
  /** Images in tool results (e.g. `view` of a PNG). */
  toolResults: boolean;
}

/**
 * Text-only models: OpenAI's o1-mini, o3-mini and GPT-3.5 and the first GPT-4 (not `-turbo` or
 * `-o`), DeepSeek's chat, reasoner and coder API models, Mistral's Codestral, and the local
 * text-only families Ollama serves (its tags after `:`).
 */
const TEXT_ONLY_MODELS: readonly RegExp[] = [
  /^o1-mini(?:-\d{4}-\d{2}-\d{2})?$/,
  /^o3-mini(?:-\d{4}-\d{2}-\d{2})?$/,
  /^gpt-3\.5-turbo/,
  /^gpt-4(?:-0314|-0613|-32k.*)?$/,
  /^deepseek-(?:chat|reasoner|coder)$/,
  /^codestral/,
  /^(?:qwen2\.5-coder|qwen3-coder|deepseek-r1|deepseek-coder-v2|codellama|llama3|llama3\.1|llama3\.3|mistral|phi4)(?::.+)?$/,
];

/** Whether the model named `modelName` (without the `provider:` prefix) takes no images. */
export function takesNoImages(modelName: string): boolean {
  return TEXT_ONLY_MODELS.some((pattern) => pattern.test(modelName));
}
