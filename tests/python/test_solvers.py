"""The framework's solvers called directly, checked against closed-form answers."""
import numpy as np
import pytest

import kinema


def test_mprgp_diagonal_box_qp_is_the_clamped_unconstrained_minimiser():
    rng = np.random.default_rng(1)
    n = 40
    a = rng.uniform(0.5, 5.0, n)
    b = rng.normal(0.0, 3.0, n)
    lo, hi = np.full(n, -0.5), np.full(n, 0.5)
    lo[::7], hi[::5] = -np.inf, np.inf
    r = kinema.mprgp(np.diag(a), b, lo, hi, rtol=1e-12)
    assert r["converged"] and r["iterations"] > 0
    assert np.allclose(r["x"], np.clip(b / a, lo, hi), atol=1e-10)


def test_mprgp_coupled_qp_satisfies_kkt():
    n = 30
    A = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1) + 0.1 * np.eye(n)  # SPD (1D Laplacian + shift)
    b = np.ones(n)
    r = kinema.mprgp(A, b, lower=np.zeros(n), upper=np.full(n, 2.0), rtol=1e-12, preconditioner="jacobi")
    x, g = r["x"], A @ r["x"] - b
    assert r["converged"] and np.all(x >= 0) and np.all(x <= 2.0)
    free = (x > 1e-12) & (x < 2.0 - 1e-12)
    assert np.max(np.abs(g[free])) < 1e-8
    assert np.all(g[x >= 2.0 - 1e-12] <= 1e-8) and np.all(g[x <= 1e-12] >= -1e-8)


def test_lp_with_known_optimum():
    # max 3x + 2y  s.t.  x + y <= 4,  x + 3y <= 6,  x <= 3,  x, y >= 0   ->  (3, 1), objective 11
    r = kinema.solve_lp([3.0, 2.0], A=[[1.0, 1.0], [1.0, 3.0]], row_upper=[4.0, 6.0], upper=[3.0, np.inf],
                        maximize=True)
    assert r["status"] == "optimal" and r["optimal"]
    assert r["objective"] == pytest.approx(11.0) and np.allclose(r["x"], [3.0, 1.0])
    assert r["row_activity"] == pytest.approx([4.0, 6.0])


def test_lp_infeasible_and_equality_rows():
    r = kinema.solve_lp([1.0, 1.0], A=[[1.0, 1.0]], row_lower=[-np.inf], row_upper=[-1.0])  # x >= 0
    assert r["status"] == "infeasible" and not r["optimal"]
    # min x + 2y + 3z  s.t.  x + y + z = 1  ->  x = 1
    r = kinema.solve_lp([1.0, 2.0, 3.0], A=[[1.0, 1.0, 1.0]], row_lower=[1.0], row_upper=[1.0])
    assert r["optimal"] and np.allclose(r["x"], [1.0, 0.0, 0.0]) and r["duals"] == pytest.approx([1.0])


@pytest.mark.parametrize("operator", ["gr", "gs-lexicographic"])
@pytest.mark.parametrize("e", [1.0, 0.5, 0.0])
def test_two_ball_head_on_impact_gives_the_textbook_velocities(operator, e):
    m1, m2, u1, u2 = 1.0, 2.0, 3.0, -1.0
    r = kinema.resolve_impact([m1, m2], [[u1, 0.0, 0.0], [u2, 0.0, 0.0]], contacts=[[0, 1]],
                              positions=[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]], restitution=e, operator=operator)
    v1 = (m1 * u1 + m2 * u2 - m2 * e * (u1 - u2)) / (m1 + m2)
    v2 = (m1 * u1 + m2 * u2 + m1 * e * (u1 - u2)) / (m1 + m2)
    v = r["velocities"]
    assert v[0, 0] == pytest.approx(v1, abs=1e-9) and v[1, 0] == pytest.approx(v2, abs=1e-9)
    assert np.allclose(v[:, 1:], 0.0)
    assert r["momentum_after"] == pytest.approx(r["momentum_before"], abs=1e-12)
    # the impulse on ball 2 along the normal is its momentum change
    assert r["impulses"][0] == pytest.approx(m2 * (v2 - u2), abs=1e-9)
    if e == 1.0:
        assert r["energy_after"] == pytest.approx(r["energy_before"], rel=1e-12)


def test_ball_against_a_static_wall_in_2d():
    # a ball falling onto the ground (the world, contact normal from the world up into the ball)
    r = kinema.resolve_impact([1.0], [[0.5, -2.0]], contacts=[[-1, 0]], normals=[[0.0, 1.0]], restitution=0.5)
    assert np.allclose(r["velocities"], [[0.5, 1.0]])
    r = kinema.resolve_impact([1.0, np.inf], [[0.0, -2.0], [0.0, 0.0]], contacts=[[1, 0]],
                              normals=[[0.0, 1.0]])
    assert np.allclose(r["velocities"], [[0.0, 2.0], [0.0, 0.0]])


def test_cradle_of_three_balls_passes_the_velocity_through():
    x = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 0.0]]
    r = kinema.resolve_impact([1.0, 1.0, 1.0], [[1.0, 0, 0], [0, 0, 0], [0, 0, 0]], contacts=[[0, 1], [1, 2]],
                              positions=x, operator="gs-lexicographic")
    assert r["converged"] and np.allclose(r["velocities"][:, 0], [0.0, 0.0, 1.0], atol=1e-12)
    assert "gr" in kinema.impact_operators()
