// Progress and when to stop (issue 28): "N of M answered", raising the budget, what more answers may
// change, why a check question is asked, and an end message that says the same as the header.
// Loaded after app.js, whose render() calls renderProgress(state).
"use strict";

const RAISE_STEP = 25;  // the raise the budget field offers first

function renderProgress(state) {
  // a team's n_answered counts everyone's answers; the budget counts the method's questions
  const budget = state.budget;
  const own = budget !== null && !state.team;
  $("of-budget").textContent = own ? " of " + budget : "";
  $("team-budget").textContent = budget !== null && state.team ? "question " + state.n_asked + " of " + budget : "";
  $("outlook").textContent = state.outlook;
  const form = $("budget");
  form.hidden = budget === null;
  $("budget-now").textContent = budget === null ? "" : budget;  // "budget 100 · raise to [125]": no bare number
  const input = $("budget-value");
  if (budget !== null && document.activeElement !== input) {
    input.min = budget + 1;
    input.value = Math.max(budget, state.n_asked) + RAISE_STEP;
  }
  const check = state.question && state.question.check;
  $("check").hidden = !check;
  $("check").textContent = check || "";
  const spent = state.done_reason === "budget";
  $("done-title").textContent = spent ? "Budget spent: " + state.n_asked + " of " + budget + " questions answered"
    : "No more questions";
  $("done-text").textContent = spent
    ? "Raise the budget (next to the counts above) to go on, or press Finish to save the clustering. "
      + state.outlook
    : "The method has what it needs. Press Finish to save the clustering, or undo an answer to change it.";
}

document.addEventListener("DOMContentLoaded", () => {
  $("budget").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = Number($("budget-value").value);
    post("/api/budget", {budget: value}, (reply) => "Budget raised to " + reply.state.budget + " questions");
  });
});
