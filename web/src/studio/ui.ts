// The studio's small building blocks: labelled form fields with their
// error messages, a refusal shown in the API's words, busy buttons, and a
// confirmation dialog. Each keeps the accessibility wiring (labels,
// aria-describedby, aria-invalid, focus) in one place.

import { h } from '../dom.js';

/** A form field: the control, its label and hint, and where its error goes. */
export interface Field<E extends HTMLElement> {
  row: HTMLElement;
  control: E;
  /** setError shows (or, with "", clears) the field's error and marks the control invalid. */
  setError(text: string): void;
}

/** radioChoice is one labelled radio button of group name, with a hint after its label that describes it. */
export function radioChoice(name: string, value: string, label: string, hint: string, checked: boolean): HTMLElement {
  const id = `${name}-${value}`;
  return h(
    'div',
    { class: 'choice' },
    h('input', { type: 'radio', name, id, value, checked, 'aria-describedby': id + '-hint' }),
    h('label', { for: id }, label, h('span', { class: 'hint', id: id + '-hint' }, ' — ' + hint)),
  );
}

/** field wraps a control with a label, an optional hint and an error line, all tied to it. */
export function field<E extends HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(id: string, label: string, control: E, hint?: string): Field<E> {
  control.id = id;
  const hintEl = hint ? h('p', { class: 'hint', id: id + '-hint' }, hint) : null;
  const errorEl = h('p', { class: 'field-error', id: id + '-error', hidden: true });
  const describe = (withError: boolean): void => {
    const ids = [hintEl ? id + '-hint' : '', withError ? id + '-error' : ''].filter(Boolean).join(' ');
    if (ids) control.setAttribute('aria-describedby', ids);
    else control.removeAttribute('aria-describedby');
  };
  describe(false);
  const row = h('div', { class: 'field' }, h('label', { for: id }, label), hintEl, control, errorEl);
  return {
    row,
    control,
    setError(text: string) {
      errorEl.textContent = text;
      errorEl.hidden = !text;
      if (text) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
      describe(Boolean(text));
    },
  };
}

/** alertBox is a message region for refusals; show puts the API's words in it so they are read out. */
export function alertBox(id: string): { el: HTMLElement; show(text: string): void; clear(): void } {
  const el = h('div', { id, class: 'alert', role: 'alert', hidden: true });
  return {
    el,
    show(text: string) {
      el.textContent = text;
      el.hidden = false;
    },
    clear() {
      el.textContent = '';
      el.hidden = true;
    },
  };
}

/**
 * busy disables button while work runs, so a double click does not send
 * twice. Disabling a focused button drops focus to the page; when the work
 * has not moved focus elsewhere, it goes back to the button, so a keyboard
 * user keeps their place.
 */
export async function busy<T>(button: HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  const hadFocus = document.activeElement === button;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    const lost = !document.activeElement || document.activeElement === document.body;
    if (hadFocus && lost && button.isConnected && !button.hidden) button.focus();
  }
}

/** errorMessage is what to show for a failure: the API's message, or a plain sentence. */
export function errorMessage(err: unknown): string {
  return err instanceof Error && err.message ? err.message : 'Something went wrong; try again.';
}

/**
 * confirmDialog asks before something that cannot be undone or that
 * bypasses a safeguard: a modal dialog naming what will happen, with the
 * safe choice focused. It resolves true only for the confirming button.
 */
export function confirmDialog(title: string, body: Array<Node | string>, confirmLabel: string, cancelLabel = 'Cancel'): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = 'dialog-title';
    const cancel = h('button', { type: 'button', class: 'secondary', id: 'dialog-cancel' }, cancelLabel);
    const confirm = h('button', { type: 'button', class: 'danger', id: 'dialog-confirm' }, confirmLabel);
    const dialog = h('dialog', { 'aria-labelledby': titleId, class: 'confirm' }, h('h2', { id: titleId }, title), ...body, h('div', { class: 'buttons' }, cancel, confirm));
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const close = (answer: boolean): void => {
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(answer);
    };
    cancel.addEventListener('click', () => close(false));
    confirm.addEventListener('click', () => close(true));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      close(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/** when writes an API timestamp as a local date and time people read. */
export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** plural writes "1 test" or "3 tests". */
export function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}
