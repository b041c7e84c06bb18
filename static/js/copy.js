// Copy buttons: a `[data-copy]` button copies the value of the input beside it.

export function attachCopyButtons(root) {
  root.addEventListener("click", async (event) => {
    const copy = event.target.closest("[data-copy]");
    if (!copy) return;
    const input = copy.parentElement.querySelector("input");
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select();
      document.execCommand("copy");
    }
    copy.textContent = "Copied!";
    setTimeout(() => { copy.textContent = "Copy"; }, 1500);
  });
}
