// Optional sound, off by default: short synthesised blips (WebAudio, no files) for a
// move, an attack, a roll and a piece lost. The choice is remembered in localStorage.

const KEY = "dejarik-sound";
let context = null;

export function soundOn() {
  try { return localStorage.getItem(KEY) === "on"; } catch { return false; }
}

export function setSound(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch { /* private mode: not remembered */ }
}

function blip(frequency, duration, type = "sine", delay = 0, gain = 0.06) {
  context = context || new AudioContext();
  const start = context.currentTime + delay;
  const osc = context.createOscillator();
  const amp = context.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(frequency, start);
  osc.frequency.exponentialRampToValueAtTime(frequency * 0.6, start + duration);
  amp.gain.setValueAtTime(gain, start);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + duration);
  osc.connect(amp).connect(context.destination);
  osc.start(start);
  osc.stop(start + duration);
}

const VOICES = {
  move: () => blip(520, 0.09, "triangle"),
  attack: () => blip(180, 0.18, "sawtooth", 0, 0.04),
  roll: () => { for (let i = 0; i < 4; i++) blip(900 + i * 140, 0.03, "square", i * 0.07, 0.02); },
  push: () => blip(300, 0.14, "triangle", 0.76),
  kill: () => blip(120, 0.4, "sawtooth", 0.76, 0.05),
  defeat: () => blip(120, 0.4, "sawtooth", 0.76, 0.05),
  capture: () => blip(240, 0.25, "square", 0, 0.03),
};

export function playSounds(events) {
  if (!soundOn() || typeof AudioContext === "undefined") return;
  const kinds = new Set(events.map((e) => e.type).filter((t) => VOICES[t]));
  try { for (const kind of kinds) VOICES[kind](); } catch { /* no audio device: stay silent */ }
}

// A toggle button for the page: "Sound: off" / "Sound: on".
export function soundToggle() {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small sound-toggle";
  const show = () => {
    button.textContent = `Sound: ${soundOn() ? "on" : "off"}`;
    button.setAttribute("aria-pressed", String(soundOn()));
  };
  button.addEventListener("click", () => { setSound(!soundOn()); show(); });
  show();
  return button;
}
