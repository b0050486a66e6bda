"""The family-guess page (annotators, after their judgment is final) and the blinding
report (admins), with its plots and CSV. Thin: parse, call a service or selector,
render. The guess page answers 404 until the judgment is final, so no page an annotator
reaches before then names a family."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation.blinding import selectors, services, statistics
from annotation.blinding.forms import FamilyGuessForm
from annotation.blinding.guess_rates import CHANCE
from annotation.comparison.models import COMPARISON_LETTERS
from annotation.comparison.services import ComparisonError
from core import display, plots
from core.plot_views import page_plot, plot_download
from core.roles import Role, role_required
from core.tidy_tables import table_links
from core.web import add_error_messages, csv_download

annotator_required = role_required(Role.PRIMARY_ANNOTATOR)
admin_required = role_required(Role.ADMIN)


@annotator_required
@require_http_methods(["GET", "POST"])
def family_guess(request, assignment):
    page = selectors.guess_page(public_id=assignment, user=request.user)
    if page is None:
        raise Http404("This question opens once your judgment is final.")
    form = FamilyGuessForm(request.POST or None, initial=page.guesses)
    if request.method == "POST" and form.is_valid():
        try:
            services.family_guess_save(
                public_id=page.public_id,
                annotator=request.user,
                guesses={letter: form.cleaned_data[letter] for letter in COMPARISON_LETTERS},
            )
        except ComparisonError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, "Thank you: your guesses are saved.")
            return redirect("comparison:queue")
    return render(request, "blinding/guess.html", {"page": page, "form": form})


def _rate_bars(tallies) -> list[plots.Bar]:
    return [
        plots.Bar(
            t.label,
            t.rate,
            low=t.clustered_ci[0] if t.clustered_ci else None,
            high=t.clustered_ci[1] if t.clustered_ci else None,
            value_text=display.format_percent(t.rate) if t.rate is not None else "no guesses",
            detail=f"{t.right}/{t.named} right",
        )
        for t in tallies
    ]


def report_plots(report) -> dict[str, plots.Scene]:
    return {
        "success": plots.hbar_chart(
            _rate_bars([report.overall, *report.by_family]),
            title="Blinding: share of family guesses that were right",
            x_label="Right guesses (no idea excluded)",
            y_label="True family",
            tick_format=plots.percent_ticks,
            x_range=(0, 1),
            references=[plots.Reference(CHANCE, "Chance (1/3)")],
            interval_label="95% CI clustered by assignment",
            empty_text="No annotator has named a family in a guess yet, so there is nothing "
            "to plot.",
        ),
        "positions": plots.hbar_chart(
            [
                plots.Bar(f"Letter {k}", n, value_text=display.format_count(n))
                for k, n in report.position_counts.items()
            ],
            title="Position bias: how often each displayed letter was selected",
            x_label="Selections",
            y_label="Displayed letter",
            tick_format=plots.count_ticks,
            integer=True,
        )
        if report.position_total
        else plots.no_data(
            "Position bias: how often each displayed letter was selected",
            "No annotator has submitted a comparison yet, so there is nothing to plot.",
        ),
    }


@admin_required
def blinding_report(request):
    report = selectors.blinding_report()
    charts = report_plots(report)
    return render(
        request,
        "blinding/report.html",
        {
            "r": report,
            "chance": CHANCE,
            "plots": {
                name: page_plot(scene, name=name, url_name="blinding:report-plot")
                for name, scene in charts.items()
            },
            "tidy": table_links(
                reverse("blinding:report-table"),
                name=statistics.BLINDING_REPORT.name,
                api_url=reverse("blinding-api:report-rows"),
            ),
        },
    )


@admin_required
def blinding_report_plot(request, plot, fmt):
    charts = report_plots(selectors.blinding_report())
    return plot_download(charts.get(plot), filename=f"blinding-{plot}", fmt=fmt)


@admin_required
def blinding_report_csv(request):
    response, writer = csv_download("blinding-report.csv")
    writer.writerow(["group", "statistic", "value"])
    for group, name, value in selectors.blinding_report().csv_rows():
        writer.writerow([group, name, "" if value is None else value])
    return response
