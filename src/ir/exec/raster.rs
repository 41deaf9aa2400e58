//! Which pixels a triangle covers, and where in the triangle each pixel lies: Vulkan's
//! rasterization of a triangle list as the driver harness draws it (one sample at each
//! pixel's centre, no culling, no depth test, viewport the whole framebuffer, depth 0 to 1).
//!
//! - The triangle is clipped against the near and far planes (`0 <= z <= w`) and a guard band
//!   far outside the viewport; the polygon left is projected, and its corners snapped to 1/256
//!   of a pixel (the 8 sub-pixel bits lavapipe and most drivers report).
//! - A pixel is covered when its centre is inside every edge of that polygon, or on an edge
//!   that is a top or a left one (Vulkan's tie-break rule), tested exactly on the snapped
//!   corners.
//! - Where a pixel lies is said by its barycentric coordinates in the original triangle, found
//!   from the clip-space corners directly (2D homogeneous rasterization), so they hold outside
//!   the triangle too: a quad's helper invocations get the values the plane of the triangle
//!   gives there, as derivatives need.

/// Sub-pixel precision: corners are snapped to 1/2^SUBPIXEL_BITS of a pixel.
const SUBPIXEL_BITS: u32 = 8;

/// The guard band, in multiples of `w`: a corner far outside the viewport is clipped here,
/// so snapped coordinates stay small.
const GUARD: f64 = 16.0;

/// One pixel of a 2×2 quad of a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pixel {
    pub x: u32,
    pub y: u32,
    /// Whether the triangle covers it; a pixel it does not cover runs as a helper.
    pub covered: bool,
    /// Perspective-correct barycentric coordinates in the triangle (they sum to 1).
    pub perspective: [f64; 3],
    /// Barycentric coordinates linear in the framebuffer (`NoPerspective`).
    pub linear: [f64; 3],
    /// The depth (`z / w`, 0 at the near plane) and `1 / w` there.
    pub depth: f64,
    pub inv_w: f64,
}

/// What rasterizing one triangle gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Covered {
    /// Whether it faces the viewer (counter-clockwise on screen is front).
    pub front_facing: bool,
    /// Every 2×2 quad with a covered pixel, in rows of quads from the top; within a quad
    /// (0,0), (1,0), (0,1), (1,1).
    pub quads: Vec<[Pixel; 4]>,
}

/// Rasterizes the triangle with clip-space corners `corners` into a `width × height`
/// framebuffer. `clip_distances` (per corner, `ClipDistance` values) cut it where any is
/// negative.
pub fn triangle(
    corners: [[f64; 4]; 3],
    clip_distances: [&[f64]; 3],
    (width, height): (u32, u32),
) -> Covered {
    let none = Covered {
        front_facing: true,
        quads: Vec::new(),
    };
    // The polygon, each corner with its coordinates in the triangle.
    let mut polygon: Vec<([f64; 4], [f64; 3])> = (0..3)
        .map(|k| {
            let mut b = [0.0; 3];
            b[k] = 1.0;
            (corners[k], b)
        })
        .collect();
    let planes: [fn(&[f64; 4]) -> f64; 6] = [
        |c| c[2],
        |c| c[3] - c[2],
        |c| GUARD * c[3] - c[0],
        |c| GUARD * c[3] + c[0],
        |c| GUARD * c[3] - c[1],
        |c| GUARD * c[3] + c[1],
    ];
    // A distance that is a single-precision denormal is 0: the fixed-function clipper
    // works in single precision and flushes them (as lavapipe's does; Vulkan leaves the
    // clipper's precision to the driver).
    let flushed = |d: f64| {
        if d.abs() < f64::from(f32::MIN_POSITIVE) {
            0.0
        } else {
            d
        }
    };
    for plane in planes {
        polygon = clip(&polygon, |c, _| flushed(plane(c)));
        if polygon.len() < 3 {
            return none;
        }
    }
    // The corners after clipping, projected and snapped.
    let (half_w, half_h) = (width as f32 / 2.0, height as f32 / 2.0);
    let scale = f64::from(1u32 << SUBPIXEL_BITS);
    let snapped: Vec<(i64, i64)> = polygon
        .iter()
        .map(|(c, _)| {
            // In f32, as the driver's viewport transform is.
            let x = (c[0] / c[3]) as f32 * half_w + half_w;
            let y = (c[1] / c[3]) as f32 * half_h + half_h;
            (
                (f64::from(x) * scale).round() as i64,
                (f64::from(y) * scale).round() as i64,
            )
        })
        .collect();
    let n = snapped.len();
    let twice_area: i64 = (0..n)
        .map(|i| {
            let (a, b) = (snapped[i], snapped[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum();
    if twice_area == 0 {
        return none;
    }
    // Vulkan's area is -1/2 of that sum in framebuffer coordinates (y down); positive is
    // counter-clockwise, the front face here.
    let front_facing = twice_area < 0;
    // Edges oriented so that the inside is where each edge function is positive.
    let order: Vec<(i64, i64)> = if twice_area > 0 {
        snapped.clone()
    } else {
        snapped.iter().rev().copied().collect()
    };
    // Corners clipping made (nearly) one are one edge of no length: no edge at all.
    let edges: Vec<((i64, i64), (i64, i64))> = (0..n)
        .map(|i| (order[i], order[(i + 1) % n]))
        .filter(|(a, b)| a != b)
        .collect();
    let inside = |px: i64, py: i64| {
        edges.iter().all(|&(a, b)| {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let e = dx * (py - a.1) - dy * (px - a.0);
            e > 0 || (e == 0 && (dy < 0 || (dy == 0 && dx > 0)))
        })
    };
    let one = 1i64 << SUBPIXEL_BITS;
    let lo_x = snapped.iter().map(|p| p.0).min().unwrap_or(0);
    let hi_x = snapped.iter().map(|p| p.0).max().unwrap_or(0);
    let lo_y = snapped.iter().map(|p| p.1).min().unwrap_or(0);
    let hi_y = snapped.iter().map(|p| p.1).max().unwrap_or(0);
    let pixel_range = |lo: i64, hi: i64, size: u32| {
        let first = (lo.div_euclid(one) - 1).max(0);
        let last = (hi.div_euclid(one) + 1).min(i64::from(size) - 1);
        (first, last)
    };
    let (x0, x1) = pixel_range(lo_x, hi_x, width);
    let (y0, y1) = pixel_range(lo_y, hi_y, height);
    let covers = |x: i64, y: i64| {
        let centre = |p: i64| p * one + one / 2;
        let (cx, cy) = (centre(x), centre(y));
        inside(cx, cy)
            && clip_distances_at(
                &corners,
                clip_distances,
                x as u32,
                y as u32,
                (width, height),
            )
    };
    let mut quads = Vec::new();
    let mut qy = y0 & !1;
    while qy <= y1 {
        let mut qx = x0 & !1;
        while qx <= x1 {
            let spots = [(qx, qy), (qx + 1, qy), (qx, qy + 1), (qx + 1, qy + 1)];
            let covered = spots.map(|(x, y)| {
                x < i64::from(width) && y < i64::from(height) && x <= x1 && y <= y1 && covers(x, y)
            });
            if covered.iter().any(|&c| c) {
                let mut k = 0;
                quads.push(spots.map(|(x, y)| {
                    let p = at(&corners, x as u32, y as u32, (width, height), covered[k]);
                    k += 1;
                    p
                }));
            }
            qx += 2;
        }
        qy += 2;
    }
    Covered {
        front_facing,
        quads,
    }
}

/// Whether every clip distance interpolated to pixel (x, y) is at least 0.
fn clip_distances_at(
    corners: &[[f64; 4]; 3],
    distances: [&[f64]; 3],
    x: u32,
    y: u32,
    size: (u32, u32),
) -> bool {
    let n = distances.iter().map(|d| d.len()).min().unwrap_or(0);
    if n == 0 {
        return true;
    }
    let b = at(corners, x, y, size, true).perspective;
    (0..n).all(|k| b[0] * distances[0][k] + b[1] * distances[1][k] + b[2] * distances[2][k] >= 0.0)
}

/// Where pixel (x, y)'s centre lies in the triangle.
fn at(corners: &[[f64; 4]; 3], x: u32, y: u32, size: (u32, u32), covered: bool) -> Pixel {
    at_offset(corners, x, y, [0.0, 0.0], size, covered)
}

/// Where the point `offset` pixels from pixel (x, y)'s centre lies in the triangle (what
/// `InterpolateAtOffset` interpolates at).
pub fn at_offset(
    corners: &[[f64; 4]; 3],
    x: u32,
    y: u32,
    offset: [f64; 2],
    (width, height): (u32, u32),
    covered: bool,
) -> Pixel {
    // The point in normalized device coordinates.
    let px = (f64::from(x) + 0.5 + offset[0]) / (f64::from(width) / 2.0) - 1.0;
    let py = (f64::from(y) + 0.5 + offset[1]) / (f64::from(height) / 2.0) - 1.0;
    // k = M⁻¹ (px, py, 1), M's columns the corners' (x, y, w): the homogeneous weights of
    // the corners whose combination projects to the centre.
    let m = |r: usize, c: usize| corners[c][[0, 1, 3][r]];
    let det = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1))
        - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
        + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
    let cofactor = |r: usize, c: usize| {
        let rows: Vec<usize> = (0..3).filter(|&i| i != r).collect();
        let cols: Vec<usize> = (0..3).filter(|&i| i != c).collect();
        let minor =
            m(rows[0], cols[0]) * m(rows[1], cols[1]) - m(rows[0], cols[1]) * m(rows[1], cols[0]);
        if (r + c).is_multiple_of(2) {
            minor
        } else {
            -minor
        }
    };
    let v = [px, py, 1.0];
    // Row i of the inverse is column i of the cofactors, over det.
    let k: [f64; 3] =
        std::array::from_fn(|i| (0..3).map(|j| cofactor(j, i) * v[j]).sum::<f64>() / det);
    let sum: f64 = k.iter().sum();
    let perspective = k.map(|ki| ki / sum);
    let w: f64 = (0..3).map(|i| perspective[i] * corners[i][3]).sum();
    let z: f64 = (0..3).map(|i| perspective[i] * corners[i][2]).sum();
    let linear = std::array::from_fn(|i| perspective[i] * corners[i][3] / w);
    Pixel {
        x,
        y,
        covered,
        perspective,
        linear,
        depth: z / w,
        inv_w: 1.0 / w,
    }
}

/// One Sutherland–Hodgman step: the part of `polygon` where `distance` is at least 0.
fn clip(
    polygon: &[([f64; 4], [f64; 3])],
    distance: impl Fn(&[f64; 4], &[f64; 3]) -> f64,
) -> Vec<([f64; 4], [f64; 3])> {
    let mut out = Vec::with_capacity(polygon.len() + 1);
    for i in 0..polygon.len() {
        let (a, b) = (&polygon[i], &polygon[(i + 1) % polygon.len()]);
        let (da, db) = (distance(&a.0, &a.1), distance(&b.0, &b.1));
        if da >= 0.0 {
            out.push(*a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            let t = da / (da - db);
            let lerp = |x: f64, y: f64| x + t * (y - x);
            out.push((
                std::array::from_fn(|k| lerp(a.0[k], b.0[k])),
                std::array::from_fn(|k| lerp(a.1[k], b.1[k])),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harness's covering triangle covers every pixel of the framebuffer once, in whole
    /// quads, front-facing, at depth 0.5, and its coordinates interpolate the corners.
    #[test]
    fn a_covering_triangle_covers_every_pixel() {
        let c = triangle(
            [
                [-1.0, -1.0, 0.5, 1.0],
                [3.0, -1.0, 0.5, 1.0],
                [-1.0, 3.0, 0.5, 1.0],
            ],
            [&[], &[], &[]],
            (24, 24),
        );
        assert_eq!(c.quads.len(), 144);
        assert!(c.quads.iter().flatten().all(|p| p.covered));
        assert!(!c.front_facing, "clockwise on screen, y down");
        let p = c.quads[0][3];
        assert_eq!((p.x, p.y), (1, 1));
        // At pixel (1,1) the centre is (1.5, 1.5) of 48 across the corners.
        assert!((p.perspective[1] - 1.5 / 48.0).abs() < 1e-12);
        assert!((p.depth - 0.5).abs() < 1e-12);
    }

    /// Two triangles sharing a diagonal cover each pixel exactly once, centres on the
    /// diagonal going to one of them (top-left rule).
    #[test]
    fn triangles_sharing_an_edge_cover_each_pixel_once() {
        // The whole viewport as two triangles whose diagonal runs through pixel centres.
        let a = [
            [-1.0, -1.0, 0.0, 1.0],
            [1.0, -1.0, 0.0, 1.0],
            [1.0, 1.0, 0.0, 1.0],
        ];
        let b = [
            [-1.0, -1.0, 0.0, 1.0],
            [1.0, 1.0, 0.0, 1.0],
            [-1.0, 1.0, 0.0, 1.0],
        ];
        let mut hits = vec![0; 8 * 8];
        for t in [a, b] {
            for p in triangle(t, [&[], &[], &[]], (8, 8)).quads.iter().flatten() {
                if p.covered {
                    hits[(p.y * 8 + p.x) as usize] += 1;
                }
            }
        }
        assert!(hits.iter().all(|&h| h == 1), "{hits:?}");
    }

    /// A triangle behind the viewer is clipped away; one through the near plane keeps what
    /// is in front, its coordinates still those of the whole triangle.
    #[test]
    fn a_denormal_distance_to_the_near_plane_is_none() {
        // A triangle in the z = 0 plane to within single-precision denormals: nothing of it
        // is clipped, as at z = 0 exactly.
        let tiny = f64::from(f32::from_bits(2));
        let flat = |z: [f64; 3]| {
            [
                [-1.0, -1.0, z[0], 1.0],
                [3.0, -1.0, z[1], 1.0],
                [-1.0, 3.0, z[2], 1.0],
            ]
        };
        let exact = triangle(flat([0.0; 3]), [&[], &[], &[]], (8, 8));
        let denormal = triangle(
            flat([-tiny, 4.0 * tiny, 2.0 * tiny]),
            [&[], &[], &[]],
            (8, 8),
        );
        let covered = |c: &Covered| c.quads.iter().flatten().filter(|p| p.covered).count();
        assert_eq!(covered(&exact), 64);
        assert_eq!(covered(&denormal), 64);
    }

    #[test]
    fn the_near_plane_clips() {
        let behind = [
            [0.0, 0.0, -1.0, 1.0],
            [1.0, 0.0, -1.0, 1.0],
            [0.0, 1.0, -1.0, 1.0],
        ];
        assert!(triangle(behind, [&[], &[], &[]], (8, 8)).quads.is_empty());
        let through = [
            [-1.0, -1.0, -1.0, 1.0],
            [3.0, -1.0, 1.0, 1.0],
            [-1.0, 3.0, 1.0, 1.0],
        ];
        let c = triangle(through, [&[], &[], &[]], (8, 8));
        let covered: Vec<&Pixel> = c.quads.iter().flatten().filter(|p| p.covered).collect();
        assert!(!covered.is_empty() && covered.len() < 64);
        assert!(covered.iter().all(|p| p.depth >= 0.0));
    }

    /// A corner on the near plane makes a clipped polygon with two corners in one place:
    /// the edge between them, of no length, leaves nothing out.
    #[test]
    fn a_corner_on_the_near_plane_does_not_empty_the_triangle() {
        let t = [
            [0.0, 0.625, -0.875, 1.0],
            [0.875, -0.625, 4e-45, 1.0],
            [-0.375, 0.25, 0.875, 1.0],
        ];
        let c = triangle(t, [&[], &[], &[]], (24, 24));
        assert!(c
            .quads
            .iter()
            .flatten()
            .any(|p| p.covered && (p.x, p.y) == (18, 7)));
    }

    /// A clip distance below zero at a pixel leaves it out.
    #[test]
    fn clip_distances_cut() {
        let t = [
            [-1.0, -1.0, 0.5, 1.0],
            [3.0, -1.0, 0.5, 1.0],
            [-1.0, 3.0, 0.5, 1.0],
        ];
        // Distance x - 0 in NDC: the left half goes.
        let d = [[-1.0], [3.0], [-1.0]];
        let c = triangle(t, [&d[0], &d[1], &d[2]], (8, 8));
        let covered: Vec<&Pixel> = c.quads.iter().flatten().filter(|p| p.covered).collect();
        assert_eq!(covered.len(), 32);
        assert!(covered.iter().all(|p| p.x >= 4));
    }
}
