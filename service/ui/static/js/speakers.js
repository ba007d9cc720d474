// The speakers of a recording, in its document view: each speaker's label ("Speaker 2" or the
// name given) and a field to name it (PUT /api/documents/{id}/speakers). Citations, the chunks'
// labels and later ingests of the file use the name; an empty name goes back to "Speaker N".

import { h, replace } from "./dom.js";
import { api } from "./api.js";

/** How a citation calls the speaker of a chunk: its name, or "Speaker N" when there are several. */
export function speakerLabel(prov = {}) {
  if (prov.speaker === undefined) return "";
  if (prov.speaker_name) return String(prov.speaker_name);
  return Number(prov.speakers ?? 2) > 1 ? `Speaker ${prov.speaker}` : "";
}

/**
 * Fill ``root`` with the speakers of document ``id`` (hidden when it has none); ``onNamed`` runs
 * after a name is saved (to show the chunks with it).
 */
export async function showSpeakers(root, id, onNamed) {
  root.hidden = true;
  root.dataset.id = String(id);
  let speakers;
  try {
    speakers = await api(`/api/documents/${id}/speakers`);
  } catch (e) {
    replace(root, h("p", { class: "error" }, `Speakers: ${e.message}`));
    root.hidden = false;
    return;
  }
  if (root.dataset.id !== String(id) || !speakers.length) return;
  const status = h("p", { class: "hint speaker-status", role: "status", "aria-live": "polite" });
  replace(root,
    h("h4", { id: "doc-speakers-title" }, "Speakers"),
    h("p", { class: "hint" }, "Name a speaker: citations, the transcript and later ingests of this recording use the name."),
    h("ul", { class: "speakers", "aria-labelledby": "doc-speakers-title" },
      speakers.map((s) => speakerRow(id, s, status, onNamed))),
    status);
  root.hidden = false;
}

function speakerRow(id, speaker, status, onNamed) {
  const number = speaker.speaker;
  const unnamed = `Speaker ${number}`;
  const input = h("input", {
    type: "text", name: "name", maxlength: "80", autocomplete: "off",
    value: speaker.label === unnamed ? "" : speaker.label,
    placeholder: unnamed, "aria-label": `Name of speaker ${number}`,
  });
  const save = h("button", { type: "submit", class: "small" }, "Save");
  const label = h("span", { class: "speaker-label" }, speaker.label);
  const form = h("form", {
    class: "speaker-name",
    onsubmit: async (e) => {
      e.preventDefault();
      save.disabled = true;
      status.classList.remove("error");
      try {
        const found = await api(`/api/documents/${id}/speakers`, {
          method: "PUT", json: { speaker: number, name: input.value },
        });
        const now = found.find((s) => s.speaker === number)?.label || unnamed;
        label.textContent = now;
        status.textContent = now === unnamed ? `Speaker ${number} has no name now.` : `Speaker ${number} is now called ${now}.`;
        if (onNamed) await onNamed();
      } catch (err) {
        status.textContent = err.message;
        status.classList.add("error");
      } finally {
        save.disabled = false;
      }
    },
  }, input, save);
  return h("li", { dataset: { speaker: String(number) } }, h("span", { class: "badge" }, String(number)), " ", label, form);
}
