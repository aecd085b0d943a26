// "Practise your mistakes" after a review: the reviewed side's mistakes, blunders and
// missed wins one by one (GET /api/practice), the board at the position before, an
// answer looked up among the server's grades (the page grades nothing itself), the
// solver's answer and line on request, and a summary at the end. main.js owns the
// session object (in its state) and the board; this module keeps the session's
// counts and draws the panel.

import { button, element } from "./dom.js";

const $ = (id) => document.getElementById(id);

// A session over the server's answer: the exercise asked now (`index`), the answers
// tried on it, how each exercise ended ("first try", "after retries", "revealed",
// "skipped"), and whether the practice is over.
export function newSession(answer, sideName) {
  return { answer, sideName, index: 0, tries: 0, graded: null, ended: false, revealed: false, endings: [], over: false };
}

export function currentExercise(session) {
  if (!session || session.over) return null;
  return session.answer.exercises[session.index] || null;
}

// The server's grade of `move` (0-based) in the current exercise; a right answer ends
// the exercise (the first ending counts).
export function grade(session, move) {
  const exercise = currentExercise(session);
  const answer = exercise && exercise.answers.find((a) => a.move_number === move + 1);
  if (!answer) return null;
  session.graded = answer;
  if (session.ended) return answer;
  session.tries += 1;
  if (answer.right) end(session, session.tries === 1 ? "first try" : "after retries");
  return answer;
}

function end(session, ending) {
  session.endings.push(ending);
  session.ended = true;
}

export function reveal(session) {
  session.revealed = true;
  if (!session.ended) end(session, "revealed");
}

// The next exercise (the current one, unanswered, counts as skipped); after the last,
// the practice is over.
export function next(session) {
  if (!session.ended) end(session, "skipped");
  Object.assign(session, { index: session.index + 1, tries: 0, graded: null, ended: false, revealed: false });
  if (session.index >= session.answer.exercises.length) session.over = true;
}

export function leave(session) {
  session.over = true;
}

// The summary in one line, as `connect4 review --practice` ends.
export function summaryLine(session) {
  const n = session.answer.exercises.length;
  const count = (ending) => session.endings.filter((e) => e === ending).length;
  const notReached = n - session.endings.length;
  return `${n} exercise${n === 1 ? "" : "s"}: ${count("first try")} right first time, `
    + `${count("after retries")} right after retries, ${count("revealed")} revealed, ${count("skipped")} skipped`
    + (notReached ? `, ${notReached} not reached` : "");
}

// The board's marks for the exercise: none while it is asked (the review's own marks
// would give the answer away); once answered or revealed, the best moves (★) and the
// game's move (✗).
export function practiceHints(session) {
  const exercise = currentExercise(session);
  if (!exercise || !(session.ended || session.revealed)) return null;
  return { best: exercise.best_move_numbers.map((n) => n - 1), played: exercise.move_number - 1, row: null };
}

// Whether the solution row and the explorer stay hidden (they would give the answer away).
export function hidesAnswers(session) {
  return Boolean(currentExercise(session)) && !session.ended;
}

// Draw the panel: the question, the last grade, the answer when revealed, the buttons;
// or the summary once the practice is over. `actions`: reveal, next, stop, close.
export function drawPractice(game, session, actions) {
  const box = $("practice");
  box.hidden = !session;
  if (!session) return;
  const exercises = session.answer.exercises;
  if (session.over || !exercises.length) {
    const head = exercises.length
      ? "Practice over"
      : `Nothing to practise: the review found no mistake, blunder or missed win of ${session.sideName}`;
    const summary = element("p", "practice-summary");
    summary.append(element("b", "", `${head}. `), exercises.length ? summaryLine(session) + "." : "");
    box.replaceChildren(summary, button("practice-close", "Close", actions.close));
    return;
  }
  const exercise = currentExercise(session);
  const head = element("p", "practice-head");
  head.append(element("b", "", `Exercise ${session.index + 1} of ${exercises.length}: `),
    `${exercise.question}: click a ${game.kind === "tictactoe" ? "cell" : "column"}.`);
  const parts = [head];
  if (session.graded) {
    const graded = element("p", `practice-grade grade-${session.graded.grade}`, session.graded.text);
    graded.setAttribute("role", "status");
    parts.push(graded);
  }
  if (session.revealed) parts.push(element("p", "practice-solution", exercise.solution.text));
  const row = element("div", "row buttons");
  if (!session.revealed) row.append(button("practice-reveal", "Show answer", actions.reveal));
  const last = session.index + 1 === exercises.length;
  row.append(button("practice-next", last ? "Finish" : "Next", actions.next), button("practice-stop", "Stop", actions.stop));
  parts.push(row);
  box.replaceChildren(...parts);
}
