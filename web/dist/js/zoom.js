// The graph's zoom, free of the DOM: the scale that fits a drawing in its
// box, and the steps in and out.
/** The smallest and largest scales the graph is drawn at. */
export const minScale = 0.1;
export const maxScale = 4;
/** Each zoom step multiplies or divides the scale by this. */
export const zoomStep = 1.25;
/** clampScale keeps a scale between minScale and maxScale. */
export function clampScale(scale) {
    return Math.min(maxScale, Math.max(minScale, scale));
}
/**
 * fitScale is the scale at which a drawing of the given natural size fits
 * a box of the given size whole: never larger than the natural size (a
 * small graph is not blown up), never below minScale.
 */
export function fitScale(natural, box) {
    if (natural.width <= 0 || natural.height <= 0 || box.width <= 0)
        return 1;
    const byWidth = box.width / natural.width;
    const byHeight = box.height > 0 ? box.height / natural.height : byWidth;
    return clampScale(Math.min(1, byWidth, byHeight));
}
/** zoomed is the scale one step in (+1) or out (-1) from scale. */
export function zoomed(scale, direction) {
    return clampScale(direction > 0 ? scale * zoomStep : scale / zoomStep);
}
